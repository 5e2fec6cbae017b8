"""What the scripts share: plain HTTP calls and signing in to Stock Manager as a browser does."""
import html.parser
import http.client
import json
import urllib.parse


class Form(html.parser.HTMLParser):
    """The sign-in form's action and the fields a browser would submit with its default choice."""

    def __init__(self):
        super().__init__()
        self.action, self.fields = None, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.action = a.get("action")
        if tag == "input" and (a.get("type") == "hidden" or (a.get("type") == "radio" and "checked" in a)):
            self.fields.append((a.get("name"), a.get("value", "")))


def request(method, url, body=None, headers=None):
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    path = u.path + ("?" + u.query if u.query else "")
    conn.request(method, path, body=body, headers=headers or {})
    res = conn.getresponse()
    data = res.read()
    conn.close()
    return res, data


def cookie(res, name):
    for k, v in res.getheaders():
        if k.lower() == "set-cookie" and v.startswith(name + "="):
            return v.split(";", 1)[0].split("=", 1)[1]
    raise SystemExit(f"no {name} cookie")


def sign_in(url, licence=None):
    """Signs in (our login route, the simulator's form, our authorize route); with `licence`,
    also activates the organization. Answers the session cookie's value and the division."""
    res, _ = request("GET", url + "/api/v1/auth/login")
    nonce, authorize = cookie(res, "esm_login"), res.getheader("Location")
    res, page = request("GET", authorize)
    form = Form()
    form.feed(page.decode())
    action = urllib.parse.urljoin(authorize, form.action or urllib.parse.urlsplit(authorize).path)
    res, _ = request("POST", action, urllib.parse.urlencode(form.fields),
                     {"Content-Type": "application/x-www-form-urlencoded"})
    back = urllib.parse.parse_qs(urllib.parse.urlsplit(res.getheader("Location")).query)
    body = json.dumps({"code": back["code"][0], "state": back["state"][0]})
    res, data = request("POST", url + "/api/v1/auth/authorize", body,
                        {"Content-Type": "application/json", "Cookie": f"esm_login={nonce}"})
    if res.status != 200:
        raise SystemExit(f"sign-in failed: {res.status} {data[:200]}")
    session = cookie(res, "esm_session")
    division = json.loads(data)["division"]
    if licence is not None:
        body = json.dumps({"division": division, "code": licence})
        res, data = request("POST", url + "/api/v1/license/activate", body,
                            {"Content-Type": "application/json", "Cookie": f"esm_session={session}"})
        if res.status != 200:
            raise SystemExit(f"activation failed: {res.status} {data[:200]}")
    return session, division
