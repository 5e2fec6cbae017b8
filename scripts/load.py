"""Load and faults: many handhelds against one server while a sync runs.

Starts the simulator (`stock-manager sim`, rate limits on) and `stock-manager serve` against it
as separate processes, signs in one session per handheld, then each handheld scans items (a code
lookup), opens item cards (stock per location and the thumbnail) and books material issues,
for a bounded time, while a full sync runs. Optional faults: the provider drops off for a while
(`--outage S`, with access tokens shorter than the outage so they expire in it) and the server
is killed with SIGKILL and restarted (`--kill`). Each handheld also checks its session and prints
an item label now and then: all of it must keep working while the provider is away. With
`--hostile N`, N more clients send hostile or careless requests beside them (deep filter nesting,
self-joins, 100,000 label ids, huge bodies and `returnTo`, form posts, foreign origins, path
tricks; and more event streams than a session may hold, where the newest must be served): each
must get a 4xx, and the server's resident memory is
sampled. At the end every booked material issue must be at the simulator exactly once, the
provider must never have seen more than 60 calls in a minute nor answered 429, and no honest
request may have failed.
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from esmlib import request, sign_in

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BIN = os.environ.get("ESM_BIN", os.path.join(ROOT, "target", "release", "stock-manager"))


def start_sim(scale):
    proc = subprocess.Popen([BIN, "sim", "--port", "0", "--scale", scale], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    return proc, line.strip().split(": ", 1)[1]


def start_server(data_dir, sim_url, public_key):
    env = dict(os.environ, ESM_PROVIDER__BASE_URL=sim_url, ESM_PROVIDER__CLIENT_ID="demo-client",
               ESM_PROVIDER__CLIENT_SECRET="demo-secret", ESM_LICENCE__PUBLIC_KEY=public_key,
               ESM_MDNS__ENABLED="false", ESM_SYNC__ON_STARTUP="false", ESM_SYNC__INTERVAL_MINUTES="0",
               RUST_LOG="error")
    proc = subprocess.Popen([BIN, "serve", "--listen", "127.0.0.1:0", "--data-dir", data_dir],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    for line in proc.stdout:
        if line.startswith("URL: "):
            return proc, line.strip()[5:]
    raise SystemExit("the server did not start")


def call(base, method, path, session, body=None):
    headers = {"Cookie": f"esm_session={session}"}
    if body is not None:
        headers["Content-Type"] = "application/json"
        body = json.dumps(body)
    res, data = request(method, base["url"] + path, body, headers)
    return res.status, data


def wait_sync(base, session, timeout=900):
    deadline = time.time() + timeout
    data = b"{}"
    while time.time() < deadline:
        status, data = call(base, "GET", "/api/v1/sync", session)
        if status == 200 and not json.loads(data)["running"]:
            return json.loads(data)
        time.sleep(0.5)
    # Say how far it got, so a slow sync can be told from a stuck one.
    tables = json.loads(data or b"{}").get("tables", {})
    done = sorted(t for t, o in tables.items() if o.get("finished_ms") or o.get("rows") is not None)
    errors = {t: o["error"] for t, o in tables.items() if o.get("error")}
    raise SystemExit(f"the sync did not finish within {timeout} s: {len(done)} tables done, "
                     f"errors {errors or 'none'}; last status: {json.dumps(tables)[:2000]}")


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency = {}
        self.errors = []
        self.issued = []
        self.hostile = {}
        self.hostile_failures = []

    def record(self, action, ms, ok, detail=""):
        with self.lock:
            self.latency.setdefault(action, []).append(ms)
            if not ok:
                self.errors.append(f"{action}: {detail}")


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))] if values else float("nan")


def handheld(base, session, items, plans, stats, stop, issue_every):
    rnd = random.Random(session)
    # Spread the handhelds' bookings over the interval.
    next_issue = time.time() + rnd.uniform(0, issue_every)
    next_label = time.time() + rnd.uniform(0, LABEL_EVERY)
    while not stop.is_set():
        item = rnd.choice(items)
        try:
            t = time.perf_counter()
            status, data = call(base, "GET", "/api/v1/auth/session", session)
            ok = status == 200 and json.loads(data).get("tier") == "full"
            stats.record("session check", (time.perf_counter() - t) * 1000, ok, f"{status} {data[:80]!r}")
            if time.time() >= next_label:
                next_label += LABEL_EVERY
                t = time.perf_counter()
                body = {"source": "item_direct", "ids": [item["ID"]], "type": "cnc-new"}
                status, data = call(base, "POST", "/api/v1/labels", session, body)
                stats.record("item label (PDF)", (time.perf_counter() - t) * 1000, status == 200, status)
            t = time.perf_counter()
            q = urllib.parse.quote(item["Code"])
            status, data = call(base, "GET", f"/api/v1/db/items?Code=eq.{q}&select=ID,Code,Description", session)
            stats.record("scan lookup", (time.perf_counter() - t) * 1000, status == 200, status)
            t = time.perf_counter()
            status, _ = call(base, "GET", f"/api/v1/db/storageLocationStockPositions?Item=eq.{item['ID']}", session)
            ok = status == 200
            pic, _ = call(base, "GET", f"/api/v1/pictures/{item['ID']}?thumbnail=true", session)
            stats.record("item card", (time.perf_counter() - t) * 1000, ok and pic in (200, 404), f"{status}/{pic}")
            if time.time() >= next_issue:
                next_issue += issue_every
                plan = rnd.choice(plans)
                body = {"ShopOrderMaterialPlan": plan, "Quantity": 1, "TransactionDate": time.strftime("%Y-%m-%d")}
                t = time.perf_counter()
                status, data = call(base, "POST", "/api/v1/exact/updateMaterialsIssues", session, body)
                ok = status == 202
                stats.record("material issue (queued)", (time.perf_counter() - t) * 1000, ok, status)
                if ok:
                    with stats.lock:
                        stats.issued.append(json.loads(data)["entries"][0]["uid"])
        except (OSError, ValueError) as e:
            # A connection refused while the server restarts after --kill is expected; say so.
            stats.record("connection", 0, base.get("restarting", False), repr(e))
            time.sleep(0.2)


def hostile_requests(session, details, plan):
    """(name, method, path, body, headers, with session) of each hostile request."""
    deep = "(" + "and(" * 3000 + "a.eq.1" + ")" * 3000 + ")"
    q = urllib.parse.quote
    self_join = '[{"source":"items","joinOn":["IsStockItem"],"joinOnSelf":["IsStockItem"]}]'
    ids = [f"{n:08x}-0000-4000-8000-{n:012x}" for n in range(100_000)]
    stamps = dict(details, sync_timestamps={"items": 9223372036854775807})
    js = {"Content-Type": "application/json"}
    return [
        ("3000-deep filter nesting", "GET", f"/api/v1/db/items?or={q(deep)}", None, {}, True),
        ("self-join on a flag", "GET", f"/api/v1/db/joins?table=items&limit=1000&joins={q(self_join)}", None, {}, True),
        ("100,000 label ids", "POST", "/api/v1/labels",
         json.dumps({"source": "item_direct", "ids": ids, "type": "receipts"}), js, True),
        ("64 KB returnTo, no session", "GET", "/api/v1/auth/login?returnTo=" + q("/" + "x" * 65536), None, {}, False),
        ("form-encoded sync", "POST", "/api/v1/sync", "endpoints=items",
         {"Content-Type": "application/x-www-form-urlencoded"}, True),
        ("sync from a foreign origin", "POST", "/api/v1/sync", '{"endpoints":["items"]}',
         dict(js, Origin="http://evil.example"), True),
        ("sync timestamps past the provider", "PUT", "/api/v1/updateOrganizationSyncTimestamps",
         json.dumps(stamps), js, True),
        ("urlDirect into another division", "GET",
         "/api/v1/exact/urlDirect?url=" + q("%2e%2e/3154117/logistics/Items"), None, {}, True),
        ("100 KB body without a session", "POST", "/api/v1/auth/reauth", json.dumps({"password": "x" * 100_000}), js, False),
        ("201 entries in one write", "POST", "/api/v1/exact/updateMaterialsIssues",
         json.dumps([{"ShopOrderMaterialPlan": plan, "Quantity": 1, "TransactionDate": "2026-11-21"}] * 201), js, True),
        ("a wrong admin password", "POST", "/api/v1/auth/reauth", json.dumps({"password": "not the password"}), js, True),
    ]


def rss_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def hostile(base, session, details, plan, stats, stop, seed):
    """Sends hostile requests in turn; each must be answered with a 4xx, never a 5xx or a drop."""
    rnd = random.Random(seed)
    requests = hostile_requests(session, details, plan)
    while not stop.is_set():
        name, method, path, body, headers, with_session = rnd.choice(requests)
        headers = dict(headers)
        if with_session:
            headers["Cookie"] = f"esm_session={session}"
        t = time.perf_counter()
        try:
            res, _ = request(method, base["url"] + path, body, headers)
            status = res.status
        except (OSError, ValueError) as e:
            status = f"no answer ({e!r})"
        ms = (time.perf_counter() - t) * 1000
        ok = isinstance(status, int) and 400 <= status < 500
        with stats.lock:
            stats.hostile.setdefault(name, {}).setdefault(status, []).append(ms)
            if not ok and not base.get("restarting", False):
                stats.hostile_failures.append(f"{name}: {status}")
        # A handful a second per client: an attack script, not a flood of the loopback.
        time.sleep(rnd.uniform(0.05, 0.3))


def streams(base, session, stats, stop):
    """Opens event streams past the per-session cap now and then: each is served, the oldest closed."""
    import http.client
    while not stop.is_set():
        host = urllib.parse.urlsplit(base["url"]).netloc
        conns, statuses = [], []
        try:
            for _ in range(5):
                c = http.client.HTTPConnection(host, timeout=10)
                c.request("GET", "/api/v1/events", headers={"Cookie": f"esm_session={session}"})
                statuses.append(c.getresponse().status)
                conns.append(c)
        except OSError as e:
            statuses.append(f"no answer ({e!r})")
        finally:
            for c in conns:
                c.close()
        with stats.lock:
            stats.hostile.setdefault("5 event streams at once", {}).setdefault(tuple(statuses), []).append(0)
            if statuses != [200] * 5 and not base.get("restarting", False):
                stats.hostile_failures.append(f"event streams: {statuses}")
        stop.wait(5)


# Slow uploads opened at once, now and then: bodies that start and stop coming.
SLOW_UPLOADS = 500


def slow_uploads(base, stats, stop):
    """Opens SLOW_UPLOADS requests whose bodies never finish: /health must answer meanwhile, and the
    server must cut each one loose with a 408 after the body's grace (10 s)."""
    import socket
    while not stop.is_set():
        host = urllib.parse.urlsplit(base["url"]).netloc
        name, port = host.rsplit(":", 1)
        head = (f"POST /api/v1/auth/authorize HTTP/1.1\r\nHost: {host}\r\nOrigin: {base['url']}\r\n"
                "Content-Type: application/json\r\nContent-Length: 4000\r\n\r\n{\"code\":\"").encode()
        socks, answers = [], {}
        try:
            for _ in range(SLOW_UPLOADS):
                s = socket.create_connection((name, int(port)), timeout=30)
                s.sendall(head)
                socks.append(s)
            t = time.perf_counter()
            res, _ = request("GET", base["url"] + "/api/v1/health")
            health_ms = (time.perf_counter() - t) * 1000
            answers["health beside them"] = res.status
            for s in socks:
                try:
                    line = s.recv(64).split(b"\r\n", 1)[0].decode(errors="replace")
                except OSError as e:
                    line = f"no answer ({e!r})"
                answers[line] = answers.get(line, 0) + 1
        except OSError as e:
            answers[f"no answer ({e!r})"] = 1
            health_ms = 0
        finally:
            for s in socks:
                s.close()
        with stats.lock:
            stats.hostile.setdefault(f"{SLOW_UPLOADS} slow uploads", {}).setdefault(
                tuple(sorted((str(k), v) for k, v in answers.items())), []).append(health_ms)
            cut = answers.get("HTTP/1.1 408 Request Timeout", 0)
            if (answers.get("health beside them") != 200 or cut != SLOW_UPLOADS) and not base.get("restarting", False):
                stats.hostile_failures.append(f"slow uploads: {answers}")
        stop.wait(20)


# Seconds between one handheld's label prints (each is a few provider calls while Exact answers,
# and the provider allows 60 calls a minute per division, shared with the sync).
LABEL_EVERY = 300.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--handhelds", type=int, default=50)
    ap.add_argument("--seconds", type=int, default=60)
    ap.add_argument("--scale", default="medium")
    ap.add_argument("--outage", type=int, default=0, help="seconds the provider is away mid-run")
    ap.add_argument("--kill", action="store_true", help="SIGKILL and restart the server mid-run")
    ap.add_argument("--token-lifetime", type=int, default=0,
                    help="provider access-token lifetime in s (default: half the outage, at least 31; "
                         "else the provider's 600); a whole sync must outlive them without a table error")
    # Every booking is a provider call and Exact allows 60 a minute per division, shared with the
    # sync: a handheld books one material issue a minute, as a busy operator might.
    ap.add_argument("--issue-every", type=float, default=60.0, help="seconds between one handheld's bookings")
    ap.add_argument("--hostile", type=int, default=0, help="clients sending hostile requests beside the handhelds")
    ap.add_argument("--sync-timeout", type=int, default=900,
                    help="seconds to wait for the full sync after the load (scale medium under Exact's rate limit takes longer)")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="esm-load-")
    key = os.path.join(work, "vendor.key")
    out = subprocess.run([BIN, "license", "keygen", "--out", key], capture_output=True, text=True, check=True).stdout
    public_key = [l.split(": ", 1)[1] for l in out.splitlines() if l.startswith("Public key: ")][0]
    sim, sim_url = start_sim(args.scale)
    lifetime = args.token_lifetime or (max(31, args.outage // 2) if args.outage else 0)
    if lifetime:
        # Tokens that expire during the outage: sessions, reads and labels must not notice.
        request("POST", sim_url + "/_sim/token-lifetime", json.dumps({"seconds": lifetime}),
                {"Content-Type": "application/json"})
        print(f"provider access tokens live {lifetime} s", flush=True)
    data_dir = os.path.join(work, "data")
    server, url = start_server(data_dir, sim_url, public_key)
    base = {"url": url}
    try:
        first, division = sign_in(url)
        _, data = request("GET", url + "/api/v1/auth/session", headers={"Cookie": f"esm_session={first}"})
        customer = json.loads(data)["customer_name"]
        code = subprocess.run([BIN, "license", "issue", "--key", key, "--division", str(division), "--customer",
                               customer], capture_output=True, text=True, check=True).stdout.strip()
        status, data = call(base, "POST", "/api/v1/license/activate", first, {"division": division, "code": code})
        assert status == 200, data
        sessions = [first] + [sign_in(url)[0] for _ in range(args.handhelds - 1)]
        for s in sessions[1:]:
            call(base, "GET", "/api/v1/checkUser", s)  # completes each session's login process
        # What the handhelds scan: items and material plans, synced first.
        call(base, "POST", "/api/v1/sync", first, {"endpoints": ["items", "shopOrderMaterialPlans"]})
        wait_sync(base, first)
        _, data = call(base, "GET", "/api/v1/db/items?select=ID,Code&limit=1000", first)
        items = json.loads(data)
        # Untracked materials only: a batch or serial material needs its numbers, which a handheld
        # of this load does not pick (Exact refuses the issue without them).
        _, data = request("GET", f"{sim_url}/_sim/rows/{division}/logistics/Items")
        tracked = {i["ID"] for i in json.loads(data) if i.get("IsSerialItem") is True or i.get("IsBatchItem") == 1}
        # Material lines only: a by-product line (Type 2) is received, never issued.
        _, data = call(base, "GET", "/api/v1/db/shopOrderMaterialPlans?select=ID,Item,Type&Type=eq.1&limit=1000", first)
        plans = [p["ID"] for p in json.loads(data) if p.get("Item") not in tracked]
        print(f"{len(sessions)} handhelds signed in; {len(items)} items and {len(plans)} plans to scan", flush=True)

        # The load, with a full sync running beside it.
        status, _ = call(base, "POST", "/api/v1/sync", first, {"endpoints": []})
        stats, stop = Stats(), threading.Event()
        threads = [threading.Thread(target=handheld, args=(base, s, items, plans, stats, stop, args.issue_every))
                   for s in sessions]
        if args.hostile:
            attacker = sign_in(url)[0]
            call(base, "GET", "/api/v1/checkUser", attacker)
            _, data = call(base, "GET", "/api/v1/auth/session", attacker)
            details = json.loads(data)["organizationDetails"]
            threads += [threading.Thread(target=hostile, args=(base, attacker, details, plans[0], stats, stop, n))
                        for n in range(args.hostile)]
            threads.append(threading.Thread(target=streams, args=(base, attacker, stats, stop)))
            threads.append(threading.Thread(target=slow_uploads, args=(base, stats, stop)))
        rss_before, rss_peak = rss_kb(server.pid), 0
        started = time.time()
        for t in threads:
            t.start()
        if args.outage:
            time.sleep(args.seconds / 3)
            print(f"provider away for {args.outage} s", flush=True)
            request("POST", sim_url + "/_sim/serving", json.dumps({"on": False}), {"Content-Type": "application/json"})
            time.sleep(args.outage)
            request("POST", sim_url + "/_sim/serving", json.dumps({"on": True}), {"Content-Type": "application/json"})
            print("provider back", flush=True)
        if args.kill:
            time.sleep(max(0, started + args.seconds * 2 / 3 - time.time()))
            base["restarting"] = True
            server.send_signal(signal.SIGKILL)
            server.wait()
            server, base["url"] = start_server(data_dir, sim_url, public_key)
            print("server killed with SIGKILL and restarted", flush=True)
            time.sleep(1)
            base["restarting"] = False
        while time.time() < started + args.seconds:
            rss_peak = max(rss_peak, rss_kb(server.pid))
            time.sleep(1)
        stop.set()
        for t in threads:
            t.join()
        elapsed = time.time() - started

        # Every booked issue reaches the provider exactly once; at most 60 calls a minute go out.
        drain_started = time.time()
        deadline = drain_started + 120 + len(stats.issued) * 1.5
        while True:
            _, data = call(base, "GET", "/api/v1/outbox", first)
            outbox = json.loads(data)
            if outbox["pending"] == 0 or time.time() > deadline:
                break
            time.sleep(1)
        _, rows = request("GET", f"{sim_url}/_sim/rows/{division}/manufacturing/MaterialIssues")
        notes = [r.get("Note") or "" for r in json.loads(rows)]
        counts = {uid: sum(1 for n in notes if uid in n) for uid in stats.issued}
        _, counters = request("GET", sim_url + "/_sim/counters")
        counters = json.loads(counters)
        # The provider's limit is 60 calls a minute per division; current/Me (sign-ins) is not
        # under it, so it is reported apart.
        per_minute = max(counters["calls_per_minute"].values(), default=0)
        all_per_minute = max(counters["all_calls_per_minute"].values(), default=0)

        total = sum(len(v) for v in stats.latency.values())
        print(f"\n{len(sessions)} handhelds for {elapsed:.0f} s, a full sync running beside them")
        print(f"{'requests':<28} {total:>8}   {total / elapsed:8.1f} /s")
        for action, values in sorted(stats.latency.items()):
            if action == "connection":
                continue
            print(f"{action:<28} {len(values):>8}   p50 {percentile(values, 0.5):7.1f} ms   p99 {percentile(values, 0.99):7.1f} ms")
        unexpected = [e for e in stats.errors if not e.startswith("connection")]
        print(f"{'errors':<28} {len(unexpected):>8}   (target 0)")
        for e in unexpected[:10]:
            print("   ", e)
        if args.hostile:
            sent = sum(len(v) for by in stats.hostile.values() for v in by.values())
            print(f"{'hostile requests':<28} {sent:>8}   from {args.hostile} clients; every one must get a 4xx")
            for name, by in sorted(stats.hostile.items()):
                answers = ", ".join(f"{k}: {len(v)}" for k, v in sorted(by.items(), key=lambda kv: str(kv[0])))
                print(f"    {name:<36} {answers}")
            print(f"{'  answered otherwise':<28} {len(stats.hostile_failures):>8}   (target 0)")
            for e in stats.hostile_failures[:10]:
                print("   ", e)
        print(f"{'server memory (RSS)':<28} {rss_before // 1024:>5} MB before, peak {rss_peak // 1024} MB during the run")
        print(f"{'provider calls, busiest min':<28} {per_minute:>8}   (target <= 60 per division)")
        print(f"{'  with sign-ins (current/Me)':<28} {all_per_minute:>8}")
        print(f"{'provider 429 answers':<28} {counters['sent_429']:>8}   (target 0)")
        queued = outbox["pending"]
        done = [e for e in outbox["entries"] if e.get("done_ms") and e.get("created_ms")]
        if done:
            waits = [(e["done_ms"] - e["created_ms"]) / 1000 for e in done]
            attempts = sum(e.get("attempts", 0) for e in done)
            print(f"outbox: {len(done)} delivered, booking to delivery p50 {percentile(waits, 0.5):.1f} s, "
                  f"max {max(waits):.1f} s, {attempts} sends", flush=True)
        # The full sync outlives its tokens (and the outage): no table ends with an error.
        final = wait_sync(base, first, args.sync_timeout)
        failed_tables = {t: o["error"] for t, o in final.get("tables", {}).items() if o.get("error")}
        print(f"{'sync tables with an error':<28} {len(failed_tables):>8}   (target 0)")
        for table, error in sorted(failed_tables.items())[:10]:
            print(f"    {table}: {error}")
        lost = sum(1 for n in counts.values() if n == 0) - queued
        doubled = sum(1 for n in counts.values() if n > 1)
        print(f"{'material issues booked':<28} {len(counts):>8}   delivered in {time.time() - drain_started:.0f} s after the load;"
              f" lost {lost}, doubled {doubled}, failed {outbox['failed']}, still queued {queued}")
        ok = (not unexpected and not stats.hostile_failures and per_minute <= 60 and counters["sent_429"] == 0 and lost == 0 and doubled == 0
              and queued == 0 and outbox["failed"] == 0 and not failed_tables)
        print("\nresult:", "ok" if ok else "MISSED")
        return 0 if ok else 1
    finally:
        server.terminate()
        server.wait()
        sim.send_signal(signal.SIGINT)
        sim.wait()
        subprocess.call(["rm", "-rf", work])


if __name__ == "__main__":
    sys.exit(main())
