"""Runs schemathesis against a `demo` server with a signed-in, activated session.

Starts `stock-manager demo`, signs in the way a browser does (our login route, the simulator's
sign-in form, our authorize route), activates the organization with the printed licence code,
then lets schemathesis fuzz every operation of /api/v1/openapi.json: no 5xx, every answer's
status and content type one the document declares for it, and every body valid against its
schema (the types the server's routes declare, and the catalogue's JSON for every error).
"""
import os
import subprocess
import sys
import tempfile

from esmlib import sign_in

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BIN = os.environ.get("ESM_BIN", os.path.join(ROOT, "target", "release", "stock-manager"))


def main():
    st = sys.argv[1]
    extra = sys.argv[2:]
    data_dir = tempfile.mkdtemp(prefix="esm-api-fuzz-")
    env = dict(os.environ, ESM_MDNS__ENABLED="false", RUST_LOG="error")
    proc = subprocess.Popen([BIN, "demo", "--no-rate-limits", "--listen", "127.0.0.1:0", "--data-dir", data_dir],
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        lines = {}
        for line in proc.stdout:
            key, _, value = line.strip().partition(": ")
            lines[key] = value
            if len(lines) >= 4:
                break
        url = lines["URL"]
        session, _ = sign_in(url, lines["Licence code"])
        # The event stream never ends and logout would end the session under test. The demo's
        # simulator has no rate limit here, so a call waits at most for the provider's deadline.
        cmd = [st, "run", url + "/api/v1/openapi.json",
               "-H", f"Cookie: esm_session={session}",
               "--checks", "not_a_server_error,status_code_conformance,content_type_conformance,"
                         "response_schema_conformance",
               "--exclude-path-regex", "/api/v1/(events|auth/logout)$",
               "--max-examples", os.environ.get("API_FUZZ_EXAMPLES", "25"),
               "--seed", os.environ.get("API_FUZZ_SEED", "1"),
               "--request-timeout", "90"] + extra
        print("running:", " ".join(c if "esm_session" not in c else "Cookie: esm_session=…" for c in cmd), flush=True)
        hooks = dict(os.environ, SCHEMATHESIS_HOOKS="api_fuzz_hooks",
                     PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
        return subprocess.call(cmd, env=hooks)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        subprocess.call(["rm", "-rf", data_dir])


if __name__ == "__main__":
    sys.exit(main())
