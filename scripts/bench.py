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
    if sys.argv[1:] == ["labels"]:
        return labels()
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
    labels()


# --- labels: 1000 receipt labels with Code 128 to one PDF, beside reportlab + python-barcode ---

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
LABELS_DIR = os.path.join(ROOT, "target", "bench-labels")
VENV = os.path.join(ROOT, "target", "bench-venv")

# The same labels as benches/labels.rs: 76.2 x 44.45 mm, Courier-Bold, Code 128 with 2-dot
# modules at 300 dpi and 10-module quiet zones.
REPORTLAB_SCRIPT = r"""
import sys, time
from reportlab.pdfgen import canvas
from reportlab.lib.units import mm
from reportlab.lib.utils import simpleSplit
import barcode

count, out = int(sys.argv[1]), sys.argv[2]
W, H = 76.2 * mm, 44.45 * mm
MODULE = 2 * 25.4 / 300 * mm

def label(c, i):
    code = "RC-%06d" % i
    c.setFont("Courier-Bold", 22)
    c.drawString(1.8 * mm, H - 8.3 * mm, code)
    modules = barcode.get_barcode_class("code128")(code).build()[0]
    x0 = (W - (len(modules) + 20) * MODULE) / 2 + 10 * MODULE
    run = None
    for k, m in enumerate(modules + "0"):
        if m == "1" and run is None:
            run = k
        elif m == "0" and run is not None:
            c.rect(x0 + run * MODULE, H - 21.5 * mm, (k - run) * MODULE, 11 * mm, stroke=0, fill=1)
            run = None
    c.setFont("Courier-Bold", 10)
    desc = "Hex bolt M8x%d zinc plated, box of 100" % (20 + i % 60)
    for n, line in enumerate(simpleSplit(desc, "Courier-Bold", 10, 72.6 * mm)[:2]):
        c.drawString(1.8 * mm, H - (25 + 4 * n) * mm, line)
    c.drawString(1.8 * mm, H - 33 * mm, "S100 Bolts Inc")
    c.drawString(1.8 * mm, H - 37 * mm, "W-L: 1-A-%02d Pr: Alpha" % (i % 40))
    c.drawString(1.8 * mm, H - 41 * mm, "PO %d %d" % (20000 + i // 10, 500 + i // 25))
    c.showPage()

t0 = time.perf_counter()
c = canvas.Canvas(out, pagesize=(W, H))
for i in range(count):
    label(c, i)
c.save()
print("seconds=%.4f" % (time.perf_counter() - t0))
"""


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if not os.path.exists(py):
        subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
    probe = subprocess.run([py, "-c", "import reportlab, barcode"], capture_output=True)
    if probe.returncode != 0:
        subprocess.run([py, "-m", "pip", "install", "--quiet", "reportlab", "python-barcode"], check=True)
    return py


def decoded_codes(pdf, tag):
    """Every barcode of the PDF as zbarimg reads it from pdftoppm -r 300 pages."""
    pages = os.path.join(LABELS_DIR, tag)
    os.makedirs(pages, exist_ok=True)
    for f in os.listdir(pages):
        os.remove(os.path.join(pages, f))
    subprocess.run(["pdftoppm", "-r", "300", "-png", pdf, os.path.join(pages, "p")], check=True)
    files = sorted(os.path.join(pages, f) for f in os.listdir(pages))
    codes = []
    for i in range(0, len(files), 100):
        r = subprocess.run(["zbarimg", "-q", "--raw"] + files[i:i + 100], capture_output=True, text=True)
        codes += [line.strip() for line in r.stdout.splitlines() if line.strip()]
    return codes


def labels(count=1000):
    print()
    print(f"labels: {count} receipt labels (type 7, Code 128) to one PDF")
    os.makedirs(LABELS_DIR, exist_ok=True)
    ours_pdf = os.path.join(LABELS_DIR, "esm.pdf")
    r = subprocess.run(
        ["cargo", "bench", "--quiet", "--bench", "labels", "--", "--count", str(count), "--out", ours_pdf],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )
    fields = dict(kv.split("=") for kv in r.stdout.strip().splitlines()[-1].split()[1:])
    ours = float(fields["seconds"])
    row("ESM render time", ours * 1000, "ms", "", True)
    row("ESM PDF size", int(fields["bytes"]) / 1024, "KB", "", True)
    row("ESM peak RSS (bench process)", float(fields["peak_rss_mb"]), "MB", "", True)

    py = ensure_venv()
    script = os.path.join(LABELS_DIR, "reportlab_labels.py")
    with open(script, "w") as f:
        f.write(REPORTLAB_SCRIPT)
    theirs_pdf = os.path.join(LABELS_DIR, "reportlab.pdf")
    runs = []
    for _ in range(3):
        out = subprocess.run([py, script, str(count), theirs_pdf], capture_output=True, text=True, check=True)
        runs.append(float(out.stdout.strip().split("=")[1]))
    theirs = sorted(runs)[1]
    row("reportlab + python-barcode time", theirs * 1000, "ms", "", True)
    row("reportlab PDF size", os.path.getsize(theirs_pdf) / 1024, "KB", "", True)
    ratio = theirs / ours if ours > 0 else float("inf")
    row("ESM speed-up over reportlab", ratio, "x", ">= 10x", ratio >= 10)

    expected = sorted("RC-%06d" % i for i in range(count))
    for tag, pdf in (("ESM", ours_pdf), ("reportlab", theirs_pdf)):
        codes = sorted(decoded_codes(pdf, tag))
        ok = codes == expected
        row(f"{tag} barcodes decoding (zbarimg)", len(codes), "codes", f"= {count}", ok)


if __name__ == "__main__":
    sys.exit(main())
