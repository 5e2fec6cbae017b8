"""Benchmark driver for scripts/bench: starts the release binary and measures it."""
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import urllib.request

BIN = os.path.join(os.path.dirname(__file__), "..", "target", "release", "stock-manager")


def row(name, value, unit, target, ok):
    mark = "ok" if ok else "MISSED"
    print(f"{name:<34} {value:>10.1f} {unit:<6} target {target:<12} {mark}")


def start_server(data_dir, extra_env=None):
    env = dict(os.environ, ESM_MDNS__ENABLED="false", RUST_LOG="warn")
    env.update(extra_env or {})
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [BIN, "serve", "--listen", "127.0.0.1:0", "--data-dir", data_dir],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True,
    )
    url = None
    for line in proc.stdout:
        if line.startswith("URL: "):
            url = line.strip()[5:]
            break
    if url is None:
        raise SystemExit("server did not start")
    while True:
        try:
            with urllib.request.urlopen(url + "/api/v1/health", timeout=1) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.002)
    return proc, url, (time.perf_counter() - t0) * 1000


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def main():
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}")
    print(f"binary:  {os.path.abspath(BIN)}")
    print()
    size_mb = os.path.getsize(BIN) / 1024 / 1024
    row("binary size (with UI)", size_mb, "MB", "< 30 MB", size_mb < 30)

    startups = []
    with tempfile.TemporaryDirectory() as d:
        for i in range(5):
            proc, url, ms = start_server(os.path.join(d, f"run{i}"))
            startups.append(ms)
            if i < 4:
                proc.terminate()
                proc.wait()
        startups.sort()
        median = startups[len(startups) // 2]
        row("startup to healthy (median of 5)", median, "ms", "< 300 ms", median < 300)
        # Idle: a few requests done (health, index), then quiet for two seconds.
        for path in ["/", "/api/v1/health", "/api/v1/version"]:
            urllib.request.urlopen(url + path).read()
        time.sleep(2)
        rss = rss_mb(proc.pid)
        row("idle RSS", rss, "MB", "< 40 MB", rss < 40)
        proc.terminate()
        proc.wait()

    store_figures()


def store_figures():
    """Runs benches/store.rs (release) and prints its figures beside the store's targets."""
    root = os.path.join(os.path.dirname(__file__), "..")
    out = subprocess.run(
        ["cargo", "bench", "--locked", "--quiet", "--bench", "store"],
        cwd=root, capture_output=True, text=True, check=True,
    ).stdout
    figures = {}
    for line in out.splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            figures[key.strip()] = value.strip()

    def num(key):
        return float(figures[key].split()[0])

    print()
    print(f"store: {int(num('rows'))} item rows of ~{int(num('row_bytes'))} bytes, indexes on Code, ItemGroup, Warehouse")
    rate = num("upsert_rows_per_s")
    row("store bulk upsert (sync bulk load)", rate / 1000, "k/s", ">= 50 k/s", rate >= 50_000)
    row("store upsert, 1 txn per 500 rows", num("per_batch_rows_per_s") / 1000, "k/s", "(info)", True)
    row("store file size", num("file_mb"), "MB", "(info)", True)
    p50, p99 = num("page_p50_ms"), num("page_p99_ms")
    row("store 1000-row page p50", p50, "ms", "(info)", True)
    row("store 1000-row page p99", p99, "ms", "< 3 ms", p99 < 3)
    qps = num("page_qps_32_threads")
    row("store pages/s, 32 threads", qps, "q/s", ">= 600 q/s", qps >= 600)
    row("store ordered page p50", num("ordered_page_p50_ms"), "ms", "(info)", True)
    row("store full-scan ilike page", num("scan_ilike_ms"), "ms", "(info)", True)
    if "peak_rss_mb" in figures:
        row("store bench peak RSS (rows in RAM)", num("peak_rss_mb"), "MB", "(info)", True)


if __name__ == "__main__":
    sys.exit(main())
