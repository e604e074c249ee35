"""The checks of `make test-dashboard` (scripts/test-dashboard.sh starts what they run against).

Home Assistant has just been started with a fresh config folder; this onboards it (one user),
adds the MQTT config entry for the private broker, waits for the agent's entities, then drives
Debian's Chromium through Playwright over the YAML dashboard `plumb dashboard` printed, and reads
Home Assistant's REST API, the agent's MQTT topics and the recorder's database. One line per
check, `PASS name: figure` or `FAIL name: why`, then `N passed, N failed`; exit 1 on a failure.
"""
import argparse
import asyncio
import datetime as dt
import json
import math
import os
import re
import sqlite3
import sys
import threading
import time
import urllib.parse

import aiohttp
import paho.mqtt.client as mqtt
import requests
import yaml
from playwright.sync_api import sync_playwright

CHROMIUM = os.environ.get("PLUMB_CHROMIUM", "/usr/bin/chromium")
USER, PASSWORD = "plumb", "plumb-dashboard-check"

args = None
passed = failed = 0
_browser = _topics = None  # closed at the end, whatever happened


def result(ok, name, text):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    print(f"{'PASS' if ok else 'FAIL'} {name}: {text}", flush=True)
    return ok


def note(text):
    print(f"  {text}", file=sys.stderr, flush=True)


def iso(ts):
    return dt.datetime.fromtimestamp(ts, dt.timezone.utc).isoformat()


class Fatal(Exception):
    """A step the later checks need failed: report it and stop."""


# --- Home Assistant: start, onboarding, tokens, the MQTT entry -------------------------------

class HA:
    def __init__(self, base):
        self.base = base
        self.client_id = base + "/"
        self.tokens = None
        self.token = None

    def headers(self):
        return {"Authorization": f"Bearer {self.token}"}

    def get(self, path, **kw):
        r = requests.get(self.base + path, headers=self.headers(), timeout=30, **kw)
        r.raise_for_status()
        return r.json()

    def post(self, path, body=None):
        r = requests.post(self.base + path, headers=self.headers(), json=body or {}, timeout=30)
        r.raise_for_status()
        return r.json() if r.content else None

    def wait_up(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if args.ha_pid and not pid_alive(args.ha_pid):
                raise Fatal("Home Assistant exited while starting (see its log)")
            try:
                r = requests.get(self.base + "/api/onboarding", timeout=5)
                if r.status_code == 200:
                    return
            except requests.RequestException:
                pass
            time.sleep(1)
        raise Fatal(f"no answer from {self.base} after {timeout} s")

    def onboard(self):
        r = requests.post(self.base + "/api/onboarding/users", timeout=30, json={
            "client_id": self.client_id, "name": "Plumb", "username": USER,
            "password": PASSWORD, "language": "en"})
        r.raise_for_status()
        code = r.json()["auth_code"]
        r = requests.post(self.base + "/auth/token", timeout=30, data={
            "grant_type": "authorization_code", "code": code, "client_id": self.client_id})
        r.raise_for_status()
        self.tokens = r.json()
        self.token = self.tokens["access_token"]
        # The script seeded the other onboarding steps as done: the core_config step would set up
        # the weather, radio and text-to-speech integrations, which reach out to the internet.
        steps = {s["step"]: s["done"] for s in requests.get(self.base + "/api/onboarding", timeout=30).json()}
        if not all(steps.values()):
            raise Fatal(f"onboarding not finished after the user step: {steps}")
        # A long-lived token for the REST calls: the access token lasts 30 minutes.
        self.token = asyncio.run(self.ws([{"type": "auth/long_lived_access_token",
                                           "client_name": "plumb-dashboard", "lifespan": 1}]))[0]

    async def ws(self, messages):
        url = self.base.replace("http", "ws", 1) + "/api/websocket"
        out = []
        async with aiohttp.ClientSession() as session, session.ws_connect(url) as sock:
            await sock.receive_json()
            await sock.send_json({"type": "auth", "access_token": self.token})
            if (await sock.receive_json()).get("type") != "auth_ok":
                raise Fatal("websocket auth refused")
            for n, message in enumerate(messages, 1):
                await sock.send_json({"id": n, **message})
                while True:
                    answer = await sock.receive_json()
                    if answer.get("id") == n and answer.get("type") == "result":
                        break
                if not answer.get("success"):
                    raise Fatal(f"websocket {message['type']}: {answer.get('error')}")
                out.append(answer.get("result"))
        return out

    def add_mqtt(self, port):
        flow = self.post("/api/config/config_entries/flow", {"handler": "mqtt"})
        for _ in range(4):
            if flow.get("type") == "create_entry":
                return flow
            if flow.get("type") == "menu":
                flow = self.post(f"/api/config/config_entries/flow/{flow['flow_id']}",
                                 {"next_step_id": "broker"})
            elif flow.get("type") == "form" and flow.get("step_id") == "broker":
                flow = self.post(f"/api/config/config_entries/flow/{flow['flow_id']}",
                                 {"broker": "127.0.0.1", "port": port})
            else:
                break
        raise Fatal(f"MQTT config flow ended as {flow}")

    def states(self):
        return {s["entity_id"]: s for s in self.get("/api/states")}

    def template(self, text):
        r = requests.post(self.base + "/api/template", headers=self.headers(),
                          json={"template": text}, timeout=30)
        r.raise_for_status()
        return r.text


def pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


# --- the agent's topics ----------------------------------------------------------------------

class Topics:
    """Every message under plumb/<id>/ (the last of each topic) and the events and results seen."""

    def __init__(self, port, device):
        self.prefix = f"plumb/{device}/"
        self.last, self.events, self.results = {}, [], []
        self.lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="plumb-dashboard-check")
        self.client.on_connect = lambda c, u, f, rc, p: c.subscribe(self.prefix + "#")
        self.client.on_message = self.on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def on_message(self, client, userdata, message):
        topic = message.topic[len(self.prefix):]
        try:
            payload = json.loads(message.payload) if message.payload else None
        except ValueError:
            payload = message.payload
        with self.lock:
            self.last[topic] = (time.time(), payload)
            if topic == "event" and isinstance(payload, dict):
                self.events.append((time.time(), payload))
            if topic == "result" and isinstance(payload, dict):
                self.results.append((time.time(), payload))

    def get(self, topic):
        with self.lock:
            return self.last.get(topic, (None, None))[1]

    def publish(self, topic, payload, retain=False):
        self.client.publish(self.prefix + topic, json.dumps(payload), qos=1, retain=retain).wait_for_publish(10)

    def stop(self):
        self.client.loop_stop()
        self.client.disconnect()


# --- the dashboard ---------------------------------------------------------------------------

def dashboard_entities(view):
    ids = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("entity"), str):
                ids.append(node["entity"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(view)
    return list(dict.fromkeys(ids))


# Text of an element including every open shadow root below it (innerText stops at them).
DEEP_TEXT = """
(el) => {
  const parts = [];
  const walk = (node) => {
    if (node.nodeType === Node.TEXT_NODE) { const t = node.textContent.trim(); if (t) parts.push(t); return; }
    if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
    if (node.tagName === 'STYLE' || node.tagName === 'SCRIPT') return;
    if (node.shadowRoot) walk(node.shadowRoot);
    const kids = node.tagName === 'SLOT' ? node.assignedNodes({flatten: true}) : node.childNodes;
    for (const k of kids) walk(k);
  };
  walk(el);
  return parts.join(' ');
}
"""

# Text the view cuts off: every element, through the shadow roots, whose own text overflows its box
# with an ellipsis or hidden overflow ("2.06 m…" for "2.06 mm/s"), as [its text, shown px, needed px].
CUT_TEXT = """
(el) => {
  const cut = [];
  const walk = (node) => {
    if (node.nodeType !== Node.ELEMENT_NODE && node.nodeType !== Node.DOCUMENT_FRAGMENT_NODE) return;
    if (node.nodeType === Node.ELEMENT_NODE && node.tagName !== 'STYLE' && node.tagName !== 'SCRIPT') {
      const style = getComputedStyle(node);
      const clips = style.textOverflow === 'ellipsis' || style.overflow === 'hidden' || style.overflowX === 'hidden';
      // Only the element that holds the text itself: a box that clips a menu or a list is no cut text.
      const own = [...node.childNodes].some(c => c.nodeType === Node.TEXT_NODE && c.textContent.trim());
      const text = (node.innerText || '').trim();
      if (clips && own && text && node.clientWidth > 0 && node.scrollWidth > node.clientWidth + 1) {
        cut.push([text.slice(0, 60), node.clientWidth, node.scrollWidth]);
      }
    }
    if (node.shadowRoot) walk(node.shadowRoot);
    const kids = node.tagName === 'SLOT' ? node.assignedElements({flatten: true}) : node.children;
    for (const k of kids) walk(k);
  };
  walk(el);
  return cut;
}
"""

# The frontend's own view of an entity: its state object and the text it formats it to.
HASS_STATE = """
(id) => {
  const hass = document.querySelector('home-assistant').hass;
  const s = hass.states[id];
  if (!s) return null;
  return {state: s.state, unit: s.attributes.unit_of_measurement || null,
          formatted: hass.formatEntityState ? hass.formatEntityState(s) : s.state};
}
"""


class Browser:
    def __init__(self, ha):
        self.ha = ha
        self.pw = sync_playwright().start()
        self.browser = self.pw.chromium.launch(
            executable_path=CHROMIUM, headless=True,
            args=["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-domain-reliability", "--no-pings"])
        # Nothing leaves 127.0.0.1: no name resolves but the loopback address (the frontend would
        # fetch integration icons from the internet), and any request elsewhere is aborted.
        self.blocked = []
        self.context = self.browser.new_context(viewport={"width": 1400, "height": 1000},
                                                locale="en-US", timezone_id="UTC")
        tokens = {**ha.tokens, "hassUrl": ha.base, "clientId": ha.client_id,
                  "expires": int(time.time() * 1000) + ha.tokens["expires_in"] * 1000}
        # The frontend reads its tokens from localStorage: logged in without the login page.
        self.context.add_init_script(
            f"window.localStorage.setItem('hassTokens', {json.dumps(json.dumps(tokens))});")
        self.context.route("**/*", self.only_loopback)
        self.page = self.context.new_page()
        self.console = []
        self.page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)

    def only_loopback(self, route):
        host = urllib.parse.urlsplit(route.request.url).hostname
        if route.request.url.startswith(("data:", "blob:")) or host == "127.0.0.1":
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def open(self, path):
        self.page.goto(self.ha.base + path, wait_until="load", timeout=60000)
        self.page.locator("home-assistant").wait_for(state="attached", timeout=60000)

    def close(self):
        self.context.close()
        self.browser.close()
        self.pw.stop()


CARD_TAGS = {"picture-entity": "hui-picture-entity-card", "glance": "hui-glance-card",
             "history-graph": "hui-history-graph-card", "entities": "hui-entities-card"}


def wait_cards(page, view, timeout=60):
    """Waits until every card of the view is in the page; returns {card type: count found}."""
    want = {}
    for card in view["cards"]:
        want[card["type"]] = want.get(card["type"], 0) + 1
    deadline = time.monotonic() + timeout
    while True:
        found = {t: page.locator(CARD_TAGS.get(t, f"hui-{t}-card")).count() for t in want}
        if found == want or time.monotonic() > deadline:
            return want, found
        time.sleep(1)


def card_problems(page):
    problems = []
    for selector in ("hui-error-card", "hui-warning", "hui-warning-element"):
        n = page.locator(selector).count()
        if n:
            problems.append(f"{n} {selector}")
            for i in range(min(n, 3)):
                problems.append(repr(page.locator(selector).nth(i).evaluate(DEEP_TEXT)[:120]))
    for text in ("Entity not available", "not found", "Entity is non-numeric", "Invalid configuration"):
        n = page.get_by_text(text).count()
        if n:
            problems.append(f"{n}× {text!r}")
    return problems


def check_cards(browser, view, name, screenshot):
    page = browser.page
    want, found = wait_cards(page, view)
    time.sleep(3)  # the history graphs fetch their rows after the card is there
    problems = card_problems(page)
    total = sum(want.values())
    ok = found == want and not problems
    detail = ", ".join(f"{found.get(t, 0)}/{n} {t}" for t, n in want.items())
    result(ok, name, f"{sum(found.values())}/{total} cards ({detail})"
           + (f"; {'; '.join(problems)}" if problems else ", no error or warning card"))
    page.screenshot(path=os.path.join(args.out, screenshot), full_page=True)
    check_text_fits(page, name.replace("cards-render", "text-fits"))


def check_text_fits(page, name):
    """No card cuts off a name or a value: the glance cards' columns and the entities cards'
    rows show their whole text at the browser's width."""
    cut = []
    for tag in sorted(set(CARD_TAGS.values()) - {"hui-picture-entity-card", "hui-history-graph-card"}):
        cards = page.locator(tag)
        for i in range(cards.count()):
            # A nested element can hold the same text node's box twice: count each text once.
            cut += [c for c in cards.nth(i).evaluate(CUT_TEXT) if c not in cut]
    shown = "; ".join(f"{t!r} {w}/{n} px" for t, w, n in cut[:6])
    result(not cut, name, f"every card's text whole at {page.viewport_size['width']} px" if not cut
           else f"{len(cut)} cut off: {shown}")


def glance_value(page, card_title, entity_name):
    """The state text a glance card shows under an entity's name."""
    card = page.locator("hui-glance-card").filter(has=page.locator(".card-header, h1", has_text=card_title))
    if card.count() == 0:
        card = page.locator("hui-glance-card").filter(has_text=card_title)
    for i in range(card.first.locator(".entity").count()):
        entity = card.first.locator(".entity").nth(i)
        name = entity.locator(".name").first
        if name.count() and name.inner_text().strip() == entity_name:
            return entity.evaluate(DEEP_TEXT).replace(entity_name, "", 1).strip()
    return None


def row_value(page, card_title, row_name):
    """The text of an entities card's row (the name first, then what the row shows)."""
    cards = page.locator("hui-entities-card").filter(has_text=card_title)
    for c in range(cards.count()):
        rows = cards.nth(c).locator("#states > div, #states > *")
        for i in range(rows.count()):
            text = rows.nth(i).evaluate(DEEP_TEXT)
            if text.startswith(row_name):
                return text[len(row_name):].strip()
    return None


def number_in(text):
    m = re.search(r"-?\d+(?:[.,]\d+)?", text or "")
    return float(m.group(0).replace(",", ".")) if m else None


# --- the run ---------------------------------------------------------------------------------

def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument("--ha", required=True)
    p.add_argument("--mqtt-port", type=int, required=True)
    p.add_argument("--device-id", default="dash")
    p.add_argument("--dashboard", required=True)
    p.add_argument("--config-dir", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--seconds", type=float, default=600)
    p.add_argument("--ha-pid", type=int, default=0)
    p.add_argument("--agent-pid", type=int, default=0)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    started = time.monotonic()
    try:
        run()
    except Fatal as e:
        result(False, "setup", str(e))
    finally:
        for thing in ("browser", "topics"):
            obj = globals().get("_" + thing)
            if obj is not None:
                try:
                    obj.close() if thing == "browser" else obj.stop()
                except Exception:
                    pass
    note(f"checks took {time.monotonic() - started:.0f} s")
    print(f"{passed} passed, {failed} failed", flush=True)
    return 1 if failed or not passed else 0


def run():
    global _browser, _topics
    view = yaml.safe_load(open(args.dashboard))["views"][0]
    wanted = dashboard_entities(view)
    picture = next((c["entity"] for c in view["cards"] if c["type"] in ("picture-entity", "picture-glance")), None)
    tilt = next(e for e in wanted if e.endswith("_tilt_deg"))
    slope = next(e for e in wanted if e.endswith("_slope"))

    ha = HA(args.ha)
    t = time.monotonic()
    ha.wait_up(240)
    ha.onboard()
    entry = ha.add_mqtt(args.mqtt_port)
    result(True, "home-assistant", f"up, onboarded and MQTT entry {entry.get('title')!r} added "
           f"{time.monotonic() - t:.0f} s after start")
    _topics = topics = Topics(args.mqtt_port, args.device_id)

    # Every entity the dashboard names, from the agent's discovery.
    deadline = time.monotonic() + 120
    while True:
        states = ha.states()
        missing = [e for e in wanted if e not in states]
        waiting = [e for e in (tilt, picture) if e in states and states[e]["state"] in ("unknown", "unavailable")]
        if (not missing and not waiting) or time.monotonic() > deadline:
            break
        time.sleep(2)
    device_entities = [e for e in states if ".plumb_lathe_" in e]
    result(not missing, "entities", f"{len(wanted) - len(missing)}/{len(wanted)} of the dashboard's entities "
           f"exist ({len(device_entities)} entities of the device)" + (f"; missing {missing}" if missing else ""))
    result(picture is not None and picture in states, "picture-entity",
           f"{picture} ({states.get(picture, {}).get('state')})" if picture else "no picture card in the dashboard")
    measure_from = time.time()

    # A machine window decides running and the zone (up to a heartbeat plus a window).
    running = next((e for e in wanted if e.endswith("_running")), None)
    zone = next((e for e in wanted if e.endswith("_vibration_zone")), None)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        states = ha.states()
        if all(states.get(e, {}).get("state") not in (None, "unknown", "unavailable") for e in (running, zone) if e):
            break
        time.sleep(2)

    _browser = browser = Browser(ha)
    page = browser.page
    view_path = f"/plumb-dash/{view.get('path', '0')}"
    browser.open(view_path)
    check_cards(browser, view, "cards-render", "dashboard.png")
    check_picture(page, picture)
    check_values(page, topics, view)

    # The device page.
    device_id = ha.template(f"{{{{ device_id('{tilt}') }}}}").strip()
    browser.open(f"/config/devices/device/{device_id}")
    try:
        page.locator("ha-config-device-page").wait_for(timeout=30000)
        page.get_by_text("Plumb lathe").first.wait_for(timeout=30000)
        time.sleep(3)
        text = page.locator("ha-config-device-page").evaluate(DEEP_TEXT)
        page.screenshot(path=os.path.join(args.out, "device.png"), full_page=True)
        model = re.search(r"[A-Za-z0-9-]+ level", text)
        result("Plumb" in text and model is not None, "device-page",
               f"/config/devices/device/{device_id} shows the device, model {model and model.group(0)!r}, "
               f"by Plumb: device.png")
    except Exception as e:
        page.screenshot(path=os.path.join(args.out, "device.png"), full_page=True)
        result(False, "device-page", f"{type(e).__name__}: {str(e)[:160]}")

    browser.open(view_path)
    wait_cards(page, view)
    check_zero(page, topics)

    # Half the run in the first unit, half in the second.
    wait_until(measure_from + args.seconds / 2, topics)
    change_at = time.time()
    topics.publish("config/set", {"angle_unit": "mm_per_m"}, retain=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if ha.states().get(slope, {}).get("attributes", {}).get("unit_of_measurement") == "mm/m":
            break
        time.sleep(1)
    states = ha.states()
    time.sleep(2)
    result(states.get(slope, {}).get("attributes", {}).get("unit_of_measurement") == "mm/m"
           and states.get(tilt, {}).get("attributes", {}).get("unit_of_measurement") == "°",
           "unit-change", f"Slope in {states.get(slope, {}).get('attributes', {}).get('unit_of_measurement')!r}, "
           f"Tilt in {states.get(tilt, {}).get('attributes', {}).get('unit_of_measurement')!r}, "
           f"{len([e for e in states if '.plumb_lathe_' in e])} entities of the device")
    browser.open(view_path)
    check_cards(browser, view, "cards-render-after-unit-change", "dashboard-after-unit-change.png")
    slope_text = glance_value(page, "Level", "Slope")
    result(slope_text is not None and "mm/m" in slope_text, "slope-card-unit", f"Slope shows {slope_text!r}")

    wait_until(measure_from + args.seconds, topics)
    end = time.time()
    check_history(ha, tilt, measure_from, change_at, end)
    check_logbook(ha, picture, measure_from, end)
    check_recorder(picture, measure_from, end)
    check_ha_log()
    if browser.blocked:  # the frontend's brand icons: never sent, and no failure of Plumb's
        hosts = sorted({urllib.parse.urlsplit(u).hostname for u in browser.blocked})
        note(f"the browser's {len(browser.blocked)} requests to {', '.join(hosts)} were aborted (loopback only)")


def wait_until(when, topics):
    while time.time() < when:
        if args.agent_pid and not pid_alive(args.agent_pid):
            raise Fatal("the agent exited during the run")
        time.sleep(min(5, max(0.1, when - time.time())))


def check_picture(page, picture):
    """The picture card shows a picture: its image loaded, from Home Assistant."""
    img = page.locator("hui-picture-entity-card img")
    deadline = time.monotonic() + 20
    size = None
    while time.monotonic() < deadline:
        if img.count():
            size = img.first.evaluate("(el) => el.complete && el.naturalWidth ? [el.naturalWidth, el.naturalHeight, el.src] : null")
            if size:
                break
        time.sleep(1)
    src = urllib.parse.urlsplit(size[2]).path if size else None
    result(bool(size), "picture-card", f"{picture}: a {size[0]}×{size[1]} picture from {src}" if size
           else f"{picture}: no picture loaded in the card within 20 s")
    if not size:
        return
    # All of the picture is in sight: the card's frame (hui-image) does not clip it. A camera's
    # picture-entity card is 16:9 unless the card sets aspect_ratio, and a square bubble would lose
    # its top and bottom.
    box = page.locator("hui-picture-entity-card hui-image").first.evaluate("""(frame) => {
      const find = (n) => { if (!n) return null; if (n.tagName === 'IMG') return n;
        for (const k of [...(n.shadowRoot ? n.shadowRoot.children : []), ...n.children]) { const f = find(k); if (f) return f; }
        return null; };
      const img = find(frame), f = frame.getBoundingClientRect(), i = img.getBoundingClientRect();
      const w = Math.max(0, Math.min(f.right, i.right) - Math.max(f.left, i.left));
      const h = Math.max(0, Math.min(f.bottom, i.bottom) - Math.max(f.top, i.top));
      return {frame: [f.width, f.height], img: [i.width, i.height], seen: (w * h) / (i.width * i.height || 1)};
    }""")
    result(box["seen"] >= 0.98, "picture-uncropped",
           f"{box['seen'] * 100:.0f}% of the {box['img'][0]:.0f}×{box['img'][1]:.0f} px picture in sight in its "
           f"{box['frame'][0]:.0f}×{box['frame'][1]:.0f} px card"
           + ("" if box["seen"] >= 0.98 else " (the card needs an aspect_ratio matching the picture)"))


def check_values(page, topics, view):
    """Tilt, level, running and zone as the cards show them, against HA's and the agent's."""
    state = topics.get("state") or {}
    vibration = topics.get("vibration") or {}
    # Tilt: what the card shows is the frontend's state, which is the agent's tilt_deg (which
    # rocks ±2° over 60 s, so the retained message may be a little newer: 0.5° of slack).
    shown = glance_value(page, "Level", "Tilt")
    front = page.evaluate(HASS_STATE, "sensor.plumb_lathe_tilt_deg")
    agent = (topics.get("state") or {}).get("tilt_deg")
    shown_n = number_in(shown)
    ok = (shown_n is not None and front and agent is not None
          and abs(shown_n - float(front["state"])) < 0.0015 and abs(shown_n - float(agent)) < 0.5)
    result(ok, "tilt-value", f"card {shown!r}, HA {front and front['state']}, agent tilt_deg {agent}")

    level_shown = glance_value(page, "Level", "Level")
    level_front = page.evaluate(HASS_STATE, "binary_sensor.plumb_lathe_level")
    level_agent = topics.get("level")  # ON or OFF
    if isinstance(level_agent, bytes):
        level_agent = level_agent.decode(errors="replace")
    want = {"ON": True, "OFF": False}.get(level_agent) if isinstance(level_agent, str) else level_agent
    ok = level_front is not None and level_shown is not None and level_shown == level_front["formatted"]
    if isinstance(want, bool):
        ok = ok and level_front["state"] == ("on" if want else "off")
    result(ok, "level-value", f"card {level_shown!r}, HA {level_front and level_front['state']}, agent {level_agent!r}")

    run_shown = glance_value(page, "Vibration", "Running")
    run_front = page.evaluate(HASS_STATE, "binary_sensor.plumb_lathe_running")
    run_agent = vibration.get("running")
    ok = (run_front is not None and run_shown == run_front["formatted"]
          and isinstance(run_agent, bool) and run_front["state"] == ("on" if run_agent else "off"))
    result(ok, "running-value", f"card {run_shown!r}, HA {run_front and run_front['state']}, agent running {run_agent}")

    zone_shown = glance_value(page, "Vibration", "Zone")
    zone_front = page.evaluate(HASS_STATE, "sensor.plumb_lathe_vibration_zone")
    zone_agent = vibration.get("zone")
    ok = zone_front is not None and zone_shown == zone_front["formatted"] and zone_front["state"] == zone_agent
    result(ok, "zone-value", f"card {zone_shown!r}, HA {zone_front and zone_front['state']}, agent zone {zone_agent!r}")


def check_zero(page, topics):
    """The Zero button on the Settings card: the agent's answer comes back as event and result."""
    since = time.time()
    cards = page.locator("hui-entities-card").filter(has_text="Settings")
    row = cards.first.locator("hui-button-entity-row").filter(has_text="Zero").filter(has_not_text="Clear")
    try:
        row.first.locator("ha-button, mwc-button, button").first.click(timeout=15000)
    except Exception as e:
        result(False, "zero-press", f"could not press Zero: {str(e)[:160]}")
        return
    deadline = time.monotonic() + 20
    event = answer = None
    while time.monotonic() < deadline and not (event and answer):
        with topics.lock:
            event = next((e for t, e in topics.events if t >= since and e.get("type") in
                          ("zeroed", "zero_applied", "zero_rejected")), None)
            answer = next((r for t, r in topics.results if t >= since and r.get("command") == "zero"), answer)
        time.sleep(0.5)
    result(event is not None and answer is not None, "zero-press",
           f"event {event and event.get('type')}, result {answer and answer.get('message')!r}"
           if event or answer else "no zero event or result within 20 s of the press")
    if not answer:
        return
    message = answer.get("message", "")
    deadline = time.monotonic() + 15
    shown = None
    while time.monotonic() < deadline:
        shown = row_value(page, "Settings", "Last result")
        if shown and message[:40] in shown:
            break
        time.sleep(1)
    result(bool(shown) and message[:40] in shown, "last-result-card", f"shows {(shown or '')[:90]!r}")


def check_history(ha, tilt, start, change_at, end):
    rows = ha.get(f"/api/history/period/{urllib.parse.quote(iso(start - 5))}",
                  params={"filter_entity_id": tilt, "end_time": iso(end)})
    rows = rows[0] if rows else []
    stamps = [dt.datetime.fromisoformat(r["last_changed"]).timestamp() for r in rows]
    before = sum(1 for s in stamps if s < change_at)
    after = sum(1 for s in stamps if s >= change_at)
    ids = {r.get("entity_id", tilt) for r in rows}
    units = {r.get("attributes", {}).get("unit_of_measurement") for r in rows if r.get("attributes")}
    numeric = [r for r in rows if r["state"] not in ("unknown", "unavailable")]
    # The longest stretch without a row across the change: a gap of a minute would be a cut.
    around = sorted(s for s in stamps if change_at - 60 <= s <= change_at + 60)
    gap = max((b - a for a, b in zip(around, around[1:])), default=float("inf"))
    ok = before > 0 and after > 0 and ids == {tilt} and units <= {"°"} and gap < 30
    result(ok, "tilt-history", f"{before} rows before the unit change, {after} after, one id {sorted(ids)}, "
           f"units {sorted(u for u in units if u)}, {len(numeric)} numeric, largest gap around the change {gap:.1f} s")


def check_logbook(ha, picture, start, end):
    if not picture:
        result(False, "logbook-picture", "no picture entity")
        return
    # From HA's start: the line of the entity's coming (unavailable to its first state) is
    # reported, not counted; every line after it, over the measured run, is a picture line.
    entries = ha.get(f"/api/logbook/{urllib.parse.quote(iso(start - 600))}", params={"end_time": iso(end)})
    when = lambda e: dt.datetime.fromisoformat(e["when"]).timestamp() if isinstance(e.get("when"), str) else float(e.get("when", 0))
    run = [e for e in entries if when(e) >= start]
    mine = [e for e in run if e.get("entity_id") == picture]
    coming = [e.get("state") for e in entries if e.get("entity_id") == picture and when(e) < start]
    device = [e for e in run if ".plumb_lathe_" in (e.get("entity_id") or "") and e.get("entity_id") != picture]
    result(not mine, "logbook-picture", f"{len(mine)} logbook lines for {picture} in {end - start:.0f} s "
           f"({len(coming)} as it was added: {coming}; {len(device)} for the device's other entities)")


def check_recorder(picture, start, end):
    db = os.path.join(args.config_dir, "home-assistant_v2.db")
    time.sleep(2)  # commit_interval 1
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        rows = con.execute(
            "SELECT m.entity_id, COUNT(*) FROM states s JOIN states_meta m ON s.metadata_id = m.metadata_id "
            "WHERE s.last_updated_ts >= ? AND s.last_updated_ts <= ? GROUP BY m.entity_id ORDER BY 2 DESC",
            (start, end)).fetchall()
        whole = con.execute(
            "SELECT COUNT(*) FROM states s JOIN states_meta m ON s.metadata_id = m.metadata_id WHERE m.entity_id = ?",
            (picture,)).fetchone()[0]
    finally:
        con.close()
    counts = dict(rows)
    n = counts.get(picture, 0)
    minutes = (end - start) / 60
    # A camera's only changes are its access token's, every 5 minutes: a row each, and a couple more.
    limit = 3 + math.ceil((end - start) / 300)
    top = ", ".join(f"{e} {c}" for e, c in rows[:4])
    result(n <= limit, "recorder-picture-rows", f"{n} state rows for {picture} in {minutes:.1f} min "
           f"(limit {limit}; {whole} since it was added); busiest: {top}; {sum(counts.values())} rows in all")


def check_ha_log():
    path = os.path.join(args.config_dir, "home-assistant.log")
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        lines = []
    bad = [l for l in lines if "Setup failed for" in l or "Unable to import" in l or "Error setting up" in l]
    errors = [l for l in lines if " ERROR " in l]
    result(not bad, "ha-setup", f"no integration failed to set up ({len(errors)} ERROR lines in HA's log)" if not bad
           else "; ".join(l[-140:] for l in bad[:3]))


if __name__ == "__main__":
    sys.exit(main())
