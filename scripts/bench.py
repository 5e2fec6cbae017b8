"""Benchmark driver for scripts/bench: starts the release binary and measures it."""
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import re
import shutil
import socket
import urllib.error
import urllib.parse
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
    if sys.argv[1:] == ["print"]:
        return raster_print()
    if sys.argv[1:2] == ["screens"]:
        return screens(sys.argv[2:] or ["medium", "large"])
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
    if "--no-labels" not in sys.argv:
        labels()
        raster_print()
    if "--no-sim" not in sys.argv:
        print()
        simulator_section()
    if "--no-store" not in sys.argv:
        store_figures()
    if "--no-sync" not in sys.argv:
        sync_figures()
    if "--no-screens" not in sys.argv:
        screens(["medium"] if "--skip-large" in sys.argv else ["medium", "large"])


def screens(scales):
    """Runs ui/e2e/bench-screens.mjs: each desktop screen's first view in Chromium, per scale."""
    ui = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ui")
    env = dict(os.environ, ESM_BIN=os.path.abspath(BIN))
    return subprocess.run(["node", "e2e/bench-screens.mjs", *scales], cwd=ui, env=env, check=True).returncode


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



# --- printing: 5000 labels to a printer that takes PWG raster only, at its 600 dpi ---

def mdns_daemons():
    """ippeveprinter will not start without a system D-Bus and avahi (as the tests start them)."""
    bus = "/run/dbus/system_bus_socket"
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(bus)
    except OSError:
        for stale in (bus, "/run/dbus/pid"):
            if os.path.exists(stale):
                os.remove(stale)
        os.makedirs("/run/dbus", exist_ok=True)
        subprocess.run(["dbus-daemon", "--system", "--fork"], check=False)
    alive = subprocess.run(["avahi-daemon", "--check"], check=False).returncode == 0
    if not alive:
        if os.path.exists("/run/avahi-daemon/pid"):
            os.remove("/run/avahi-daemon/pid")
        subprocess.run(["avahi-daemon", "--no-chroot", "--no-drop-root", "--no-rlimits", "-D"], check=False)
        time.sleep(2)


def raster_print(count=5000):
    print()
    print(f"printing: {count} receipt labels to a PWG-raster-only printer (ippeveprinter, 600 dpi)")
    if not shutil.which("ippeveprinter"):
        print("    (skipped: ippeveprinter is not installed; scripts/setup installs it)")
        return
    mdns_daemons()
    with tempfile.TemporaryDirectory() as d:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        spool = os.path.join(d, "spool")
        os.makedirs(spool)
        printer = subprocess.Popen(["ippeveprinter", "-p", str(port), "-n", "localhost", "-f", "image/pwg-raster",
                                    "-m", "ESM Bench Label", "-d", spool, "esm-bench"],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 20
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.time() > deadline or printer.poll() is not None:
                        print("    (skipped: ippeveprinter did not start)")
                        return
                    time.sleep(0.1)
            r = subprocess.run(
                ["cargo", "bench", "--quiet", "--bench", "print_raster", "--", "--count", str(count),
                 "--uri", f"ipp://localhost:{port}/ipp/print"],
                cwd=ROOT, capture_output=True, text=True, check=True,
            )
        finally:
            printer.terminate()
            printer.wait()
    fields = dict(kv.split("=") for kv in r.stdout.strip().splitlines()[-1].split()[1:])
    if fields["format"] != "image/pwg-raster":
        print(f"    (the printer was sent {fields['format']}, not PWG raster: the figures below are not of raster)")
    row("rendered, spooled and sent", float(fields["seconds"]), "s", "", True)
    rss = float(fields["peak_rss_mb"])
    row("peak RSS (bench process)", rss, "MB", "< 300 MB", rss < 300)


# --- PostgreSQL, the peer of the store and the sync: a throwaway cluster in a temp dir ---

class Postgres:
    """A throwaway PostgreSQL cluster on a unix socket in a temp dir, run as a non-root user
    when started by root. None when no server binaries can be found or installed."""

    def __init__(self, bindir, user, cache_mb):
        self.bindir, self.user = bindir, user
        self.dir = tempfile.mkdtemp(prefix="esm-pg-")
        os.chmod(self.dir, 0o777)
        self.data = os.path.join(self.dir, "data")
        self.sock = self.dir
        self.port = "5439"
        self.run_as([self.bin("initdb"), "-D", self.data, "-U", "bench", "--auth=trust", "-E", "UTF8", "--locale=C"])
        opts = f"-k {self.sock} -c listen_addresses='' -p {self.port} -c shared_buffers={cache_mb}MB -c max_connections=64"
        self.run_as([self.bin("pg_ctl"), "-D", self.data, "-o", opts, "-l", os.path.join(self.dir, "log"), "-w", "start"])

    def bin(self, name):
        return os.path.join(self.bindir, name)

    def run_as(self, args, **kw):
        if self.user:
            args = ["runuser", "-u", self.user, "--"] + args
        return subprocess.run(args, check=True, capture_output=True, text=True, cwd=self.dir, **kw)

    def psql(self, sql):
        return self.run_as([self.bin("psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", self.sock,
                            "-p", self.port, "-U", "bench", "-d", "postgres", "-c", sql]).stdout

    def readable(self, path):
        """A copy of `path` the server's user can read."""
        dest = os.path.join(self.dir, os.path.basename(path))
        if os.path.abspath(path) != dest:
            subprocess.run(["cp", path, dest], check=True)
        os.chmod(dest, 0o644)
        return dest

    def pgbench(self, script, clients, seconds, log=False):
        path = os.path.join(self.dir, "query.sql")
        with open(path, "w") as f:
            f.write(script)
        os.chmod(path, 0o644)
        args = [self.bin("pgbench"), "-n", "-h", self.sock, "-p", self.port, "-U", "bench", "-f", path,
                "-c", str(clients), "-j", str(min(clients, os.cpu_count() or 1)), "-T", str(seconds), "postgres"]
        if log:
            args += ["-l", "--log-prefix", os.path.join(self.dir, "lat")]
        out = self.run_as(args).stdout
        tps = float(re.search(r"tps = ([0-9.]+)", out).group(1))
        lat = []
        if log:
            for name in os.listdir(self.dir):
                if name.startswith("lat"):
                    with open(os.path.join(self.dir, name)) as f:
                        lat += [int(line.split()[2]) / 1000 for line in f if line.strip()]
                    os.remove(os.path.join(self.dir, name))
            lat.sort()
        return tps, lat

    def stop(self):
        try:
            self.run_as([self.bin("pg_ctl"), "-D", self.data, "-m", "immediate", "stop"])
        finally:
            subprocess.run(["rm", "-rf", self.dir])


def find_pg_bindir():
    import glob
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    if not found and os.geteuid() == 0:
        subprocess.run(["apt-get", "install", "-y", "-q", "postgresql"], capture_output=True)
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    return os.path.dirname(found[-1]) if found else None


def start_postgres():
    bindir = find_pg_bindir()
    if bindir is None:
        print("    (PostgreSQL not found: no peer figures)")
        return None
    user = None
    if os.geteuid() == 0:
        import pwd
        for name in ("postgres", "nobody"):
            try:
                pwd.getpwnam(name)
                user = name
                break
            except KeyError:
                pass
    try:
        # shared_buffers equal to the store's page cache (store::DEFAULT_CACHE_BYTES).
        return Postgres(bindir, user, 128)
    except subprocess.CalledProcessError as e:
        print(f"    (PostgreSQL did not start: {e.stderr.strip()[:200]})")
        return None


def percentile(sorted_values, p):
    return sorted_values[round((len(sorted_values) - 1) * p)]


PG_ITEMS = """
CREATE TABLE items (id text PRIMARY KEY, code text, item_group text, warehouse text, doc jsonb NOT NULL);
CREATE INDEX ON items (code);
CREATE INDEX ON items (item_group);
CREATE INDEX ON items (warehouse);
"""

# The store bench's page: 1000 full item rows of one warehouse and item group, in key order,
# answered as one JSON array (the guids are the bench's guid_of(n)).
PG_PAGE = r"""\set w random(0, 9)
\set g random(0, 9)
SELECT coalesce(json_agg(doc ORDER BY id), '[]') FROM (
  SELECT id, doc FROM items
  WHERE warehouse = lpad(to_hex(2000 + :w), 8, '0') || '-1111-4222-8333-' || lpad(to_hex(2000 + :w), 12, '0')
    AND item_group = lpad(to_hex(1000 + :g), 8, '0') || '-1111-4222-8333-' || lpad(to_hex(1000 + :g), 12, '0')
  ORDER BY id LIMIT 1000) page;
"""


def pg_store_peer(export):
    """Loads the store bench's rows into PostgreSQL and answers the same page query."""
    pg = start_postgres()
    if pg is None:
        return None
    try:
        pg.psql(PG_ITEMS)
        src = pg.readable(export)
        t0 = time.perf_counter()
        pg.psql(f"COPY items FROM '{src}'")
        copy_s = time.perf_counter() - t0
        rows = int(pg.psql("SELECT count(*) FROM items").strip())
        pg.psql("VACUUM ANALYZE items")
        pg.pgbench(PG_PAGE, 1, 2)  # warm-up
        _, lat = pg.pgbench(PG_PAGE, 1, 8, log=True)
        qps, _ = pg.pgbench(PG_PAGE, 32, 10)
        return {"rows": rows, "copy_rows_per_s": rows / copy_s, "p50": percentile(lat, 0.5),
                "p99": percentile(lat, 0.99), "qps": qps}
    finally:
        pg.stop()


def pg_sync_peer(export_dir):
    """COPY of the rows a sync stored (key and indexed fields as columns with the same indexes,
    the row as jsonb) into a fresh PostgreSQL database, in one transaction per table."""
    pg = start_postgres()
    if pg is None:
        return None
    try:
        with open(os.path.join(export_dir, "tables.json")) as f:
            tables = json.load(f)
        ddl = []
        for table, cols in tables.items():
            columns = ", ".join(f'"{c}" text' for c in cols)
            ddl.append(f'CREATE TABLE "{table}" ({columns}, doc jsonb NOT NULL, PRIMARY KEY ("{cols[0]}"));')
            ddl += [f'CREATE INDEX ON "{table}" ("{c}");' for c in cols[1:]]
        pg.psql("\n".join(ddl))
        files = {t: pg.readable(os.path.join(export_dir, f"{t}.tsv")) for t in tables}
        t0 = time.perf_counter()
        for table, path in files.items():
            pg.psql(f"COPY \"{table}\" FROM '{path}'")
        secs = time.perf_counter() - t0
        rows = sum(int(pg.psql(f'SELECT count(*) FROM "{t}"').strip()) for t in tables)
        size = int(pg.psql("SELECT pg_database_size('postgres')").strip()) / 1024 / 1024
        return {"rows": rows, "seconds": secs, "rows_per_s": rows / secs, "db_mb": size}
    finally:
        pg.stop()


def peak_rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def start_sim(scale):
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [BIN, "sim", "--scale", scale, "--port", "0", "--no-rate-limits"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env=dict(os.environ, RUST_LOG="warn"),
    )
    base = None
    for line in proc.stdout:
        if line.startswith("Simulator: "):
            base = line.strip()[len("Simulator: "):]
            break
    if base is None:
        raise SystemExit(f"simulator ({scale}) did not start")
    return proc, base, time.perf_counter() - t0


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def sim_token(base):
    """Sign in the way a browser would: submit the sign-in form's default choice."""
    redirect = "http://localhost:9/cb"
    query = urllib.parse.urlencode({"client_id": "demo-client", "redirect_uri": redirect, "response_type": "code", "state": "b"})
    html = urllib.request.urlopen(f"{base}/api/oauth2/auth?{query}").read().decode()
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', html))
    fields["user"] = re.search(r'name="user" value="(\d+)" checked', html).group(1)
    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(f"{base}/api/oauth2/auth", urllib.parse.urlencode(fields).encode())
        raise SystemExit("sign-in did not redirect")
    except urllib.error.HTTPError as e:
        location = e.headers["Location"]
    code = urllib.parse.parse_qs(urllib.parse.urlparse(location).query)["code"][0]
    body = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code, "redirect_uri": redirect,
                                   "client_id": "demo-client", "client_secret": "demo-secret"}).encode()
    return json.load(urllib.request.urlopen(f"{base}/api/oauth2/token", body))["access_token"]


def sync_pages(base, token, path, select, max_pages):
    division = None
    req = urllib.request.Request(f"{base}/api/v1/current/Me", headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
    division = json.load(urllib.request.urlopen(req))["d"]["results"][0]["CurrentDivision"]
    url = f"{base}/api/v1/{division}/{path}?" + urllib.parse.urlencode({"$filter": "Timestamp gt 1L", "$select": select})
    pages = rows = 0
    t0 = time.perf_counter()
    # The client only counts rows and finds __next (the envelope's last property), so the figure is
    # the simulator's throughput, not Python's JSON parser's.
    next_re = re.compile(rb',"__next":"([^"]+)"\}\}$')
    while url and pages < max_pages:
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}", "Accept": "application/json"})
        body = urllib.request.urlopen(req).read()
        rows += body.count(b'"__metadata"')
        pages += 1
        m = next_re.search(body)
        url = m.group(1).decode() if m else None
    return pages, rows, time.perf_counter() - t0


def simulator_section():
    print("simulator (demo data generator and provider stand-in)")
    scales = [s for s in ("small", "medium", "large") if f"--skip-{s}" not in sys.argv]
    for scale in scales:
        proc, base, secs = start_sim(scale)
        try:
            stats = json.load(urllib.request.urlopen(f"{base}/_sim/stats"))
            row(f"sim {scale}: generate + listen", secs, "s", "figure", True)
            print(f"    ({stats['total_rows']:,} rows over {len(stats['divisions'])} divisions)")
            row(f"sim {scale}: peak RSS after start", peak_rss_mb(proc.pid), "MB", "< 24 GB", peak_rss_mb(proc.pid) < 24 * 1024)
            if scale != "small":
                token = sim_token(base)
                select = ",".join(["ID", "Code", "Description", "Barcode", "Unit", "ItemGroup", "IsStockItem", "IsMakeItem",
                                   "Stock", "PictureUrl", "FreeTextField_06", "Modified", "Timestamp"])
                pages, rows, took = sync_pages(base, token, "sync/Logistics/Items", select, 200)
                rate = pages / took if took else float("inf")
                row(f"sim {scale}: sync pages of 1000 rows", rate, "pg/s", ">= 50 pg/s", rate >= 50)
                print(f"    ({pages} pages, {rows} rows in {took:.2f} s; peak RSS now {peak_rss_mb(proc.pid):.0f} MB)")
        finally:
            proc.terminate()
            proc.wait()


def store_figures():
    """Runs benches/store.rs (release) and prints its figures beside the store's targets and
    PostgreSQL answering the same page query on the same rows."""
    root = os.path.join(os.path.dirname(__file__), "..")
    export = os.path.join(tempfile.mkdtemp(prefix="esm-store-"), "items.tsv")
    out = subprocess.run(
        ["cargo", "bench", "--locked", "--quiet", "--bench", "store"],
        cwd=root, capture_output=True, text=True, check=True, env=dict(os.environ, ESM_BENCH_EXPORT=export),
    ).stdout
    figures = {}
    for line in out.splitlines():
        key, sep, value = line.partition(": ")
        if sep:
            figures[key.strip()] = value.strip()

    def num(key):
        return float(figures[key].split()[0])

    pg = None if "--no-pg" in sys.argv else pg_store_peer(export)
    subprocess.run(["rm", "-rf", os.path.dirname(export)])
    print()
    print(f"store: {int(num('rows'))} item rows of ~{int(num('row_bytes'))} bytes, indexes on Code, ItemGroup, Warehouse")
    rate = num("upsert_rows_per_s")
    row("store bulk upsert (sync bulk load)", rate / 1000, "k/s", ">= 50 k/s", rate >= 50_000)
    if pg:
        row("  PostgreSQL COPY of the same rows", pg["copy_rows_per_s"] / 1000, "k/s", "(peer)", True)
    row("store upsert, 1 txn per 500 rows", num("per_batch_rows_per_s") / 1000, "k/s", "(info)", True)
    row("store file size", num("file_mb"), "MB", "(info)", True)
    p50, p99 = num("page_p50_ms"), num("page_p99_ms")
    qps = num("page_qps_32_threads")
    if pg:
        print(f"    page: 1000 full item rows of one warehouse and item group, as one JSON array")
        row("store 1000-row page p50", p50, "ms", "(info)", True)
        row("  PostgreSQL p50 (pgbench, 1 client)", pg["p50"], "ms", "(peer)", True)
        row("store 1000-row page p99", p99, "ms", "< %.1f ms" % pg["p99"], p99 < pg["p99"])
        row("  PostgreSQL p99", pg["p99"], "ms", "(peer)", True)
        row("store pages/s, 32 threads", qps, "q/s", ">= %.0f q/s" % (3 * pg["qps"]), qps >= 3 * pg["qps"])
        row("  PostgreSQL pages/s, 32 clients", pg["qps"], "q/s", "(peer)", True)
    else:
        row("store 1000-row page p50", p50, "ms", "(info)", True)
        row("store 1000-row page p99", p99, "ms", "< 3 ms", p99 < 3)
        row("store pages/s, 32 threads", qps, "q/s", ">= 600 q/s", qps >= 600)
    row("store ordered page p50", num("ordered_page_p50_ms"), "ms", "(info)", True)
    row("store full-scan ilike page", num("scan_ilike_ms"), "ms", "(info)", True)
    if "peak_rss_mb" in figures:
        row("store bench peak RSS (rows in RAM)", num("peak_rss_mb"), "MB", "(info)", True)


def sync_figures():
    """Runs benches/sync.rs: a full sync from a simulator process, then a rate-limited one;
    PostgreSQL's COPY of the same rows; the server's start with the synced store."""
    root = os.path.join(os.path.dirname(__file__), "..")
    scale = "medium" if ("--sync-medium" in sys.argv or "--skip-large" in sys.argv) else "large"
    work = tempfile.mkdtemp(prefix="esm-sync-")
    export, data = os.path.join(work, "export"), os.path.join(work, "data")
    env = dict(os.environ, ESM_BENCH_DATA_DIR=data)
    if "--no-pg" not in sys.argv:
        env["ESM_BENCH_EXPORT"] = export
    try:
        out = subprocess.run(
            ["cargo", "bench", "--locked", "--quiet", "--bench", "sync", "--", scale],
            cwd=root, capture_output=True, text=True, check=True, env=env,
        ).stdout
        f = {}
        for line in out.splitlines():
            key, sep, value = line.partition(": ")
            if sep:
                f[key.strip()] = value.strip()
        pg = pg_sync_peer(export) if os.path.isdir(export) else None
        print()
        print(f"sync: full sync of the 12 sync endpoints at scale {f['scale']}, rate limits off ({int(f['rows']):,} rows)")
        rate = float(f["rows_per_s"])
        if pg:
            row("sync rows/s", rate / 1000, "k/s", ">= 50 k/s, > peer", rate >= 50_000 and rate > pg["rows_per_s"])
            row("  PostgreSQL COPY of the same rows", pg["rows_per_s"] / 1000, "k/s", "(peer)", True)
        else:
            row("sync rows/s", rate / 1000, "k/s", ">= 50 k/s", rate >= 50_000)
        rss = float(f["peak_rss_mb"])
        row("sync peak RSS", rss, "MB", "< 300 MB", rss < 300)
        row("store size after sync", float(f["store_mb"]), "MB", "(info)", True)
        if pg:
            row("  PostgreSQL database size", pg["db_mb"], "MB", "(peer)", True)
        if f.get("failed_tables"):
            print(f"    failed tables: {f['failed_tables']}")
        startups = []
        for _ in range(5):
            proc, _, ms = start_server(data)
            startups.append(ms)
            proc.terminate()
            proc.wait()
        startups.sort()
        median = startups[len(startups) // 2]
        row(f"startup to healthy, {scale} store", median, "ms", "< 500 ms", median < 500)
        calls, floor, r429 = int(f["limited_calls"]), int(f["limited_floor"]), int(f["limited_429"])
        print(f"sync with rate limits on, scale small ({int(f['limited_rows']):,} rows in {f['limited_seconds']} s)")
        row("provider calls (floor %d)" % floor, calls, "calls", "= floor", calls == floor)
        row("429 answers", r429, "", "0", r429 == 0)
    finally:
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
