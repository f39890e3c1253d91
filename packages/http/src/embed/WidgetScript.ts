/**
 * The embeddable chat widget (docs/embed.md, "The widget script"), served at `GET /embed/widget.js`.
 * A website owner pastes the embed token's snippet:
 *
 *   <script src="https://agents.example.com/embed/widget.js" data-agentline-token="emb_..." async></script>
 *
 * (`data-token` works too). The script reads the widget's configuration (`/public/embed/config/{token}`),
 * draws a button in its own shadow root, and on the first click opens a session (`/public/embed/init`)
 * and chats through `/public/embed/chat/{session_token}` on the server the script came from. A refused
 * page (an origin the token does not allow, a revoked or expired token) gets no button: the host
 * element's `data-state` says `refused` and the console says why. Voice widgets are not served by this
 * script yet (web calls need the voice pipeline): `data-state` `unsupported`.
 *
 * Plain ES2017 for any browser, no dependencies, no `eval`, no inline styles in the host page's DOM
 * (a constructed stylesheet in the shadow root, so a strict `style-src` on the host page does not
 * break it). The visitor's text is only ever set as `textContent`.
 *
 * Kept as a string (not compiled from TypeScript) so what is served is exactly what is written here.
 * It must not contain backquotes or dollar-brace pairs.
 */
import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

export const WIDGET_PATH = "/embed/widget.js"

export const WIDGET_SCRIPT = String.raw`(function () {
  "use strict";
  var script = document.currentScript ||
    document.querySelector("script[data-agentline-token],script[data-token]");
  if (!script) return;
  var token = script.getAttribute("data-agentline-token") || script.getAttribute("data-token");
  if (!token) { console.error("Agentline widget: the script has no data-agentline-token"); return; }
  var api = new URL(script.src, location.href).origin + "/api/v1/public/embed";
  var storageKey = "agentline-chat:" + token;

  var host = document.createElement("div");
  host.setAttribute("data-agentline-widget", "");
  host.setAttribute("data-state", "loading");
  var root = host.attachShadow({ mode: "open" });
  var css = [
    ":host{all:initial;position:fixed;z-index:2147483000;font:14px/1.4 system-ui,-apple-system,Segoe UI,Roboto,sans-serif}",
    ".launcher{border:0;border-radius:999px;padding:12px 18px;color:#fff;cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25);font:inherit;font-weight:600}",
    ".panel{display:none;flex-direction:column;width:340px;max-width:calc(100vw - 32px);height:460px;max-height:calc(100vh - 96px);border-radius:12px;overflow:hidden;box-shadow:0 8px 30px rgba(0,0,0,.3);margin-bottom:10px}",
    ".panel.open{display:flex}",
    ".light .panel{background:#fff;color:#111}.dark .panel{background:#1f2430;color:#eee}",
    ".head{display:flex;align-items:center;justify-content:space-between;padding:10px 12px;color:#fff;font-weight:600}",
    ".head button{background:transparent;border:0;color:#fff;cursor:pointer;font:inherit;font-size:13px}",
    ".log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:8px}",
    ".msg{max-width:85%;padding:8px 11px;border-radius:10px;white-space:pre-wrap;word-wrap:break-word}",
    ".agent{align-self:flex-start;background:rgba(127,127,127,.16)}",
    ".user{align-self:flex-end;color:#fff}",
    ".note{align-self:center;font-size:12px;opacity:.75;text-align:center}",
    ".failed{opacity:.6}",
    "form{display:flex;gap:6px;padding:10px;border-top:1px solid rgba(127,127,127,.25)}",
    "input{flex:1;min-width:0;padding:8px 10px;border-radius:8px;border:1px solid rgba(127,127,127,.45);font:inherit;background:transparent;color:inherit}",
    "form button{border:0;border-radius:8px;padding:8px 12px;color:#fff;cursor:pointer;font:inherit}",
    "button:disabled,input:disabled{opacity:.55;cursor:default}"
  ].join("\n");
  try {
    var sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [sheet];
  } catch (e) {
    var style = document.createElement("style");
    style.textContent = css;
    root.appendChild(style);
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function request(method, path, body) {
    return fetch(api + path, {
      method: method,
      credentials: "omit",
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body)
    }).then(function (response) {
      return response.text().then(function (text) {
        var json = null;
        try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
        if (!response.ok) {
          var detail = json && typeof json.detail === "string" ? json.detail : "The chat is not available (" + response.status + ")";
          var error = new Error(detail);
          error.status = response.status;
          throw error;
        }
        return json;
      });
    });
  }

  function context() {
    var raw = script.getAttribute("data-agentline-context");
    if (!raw) return undefined;
    try { return JSON.parse(raw); } catch (e) { console.error("Agentline widget: data-agentline-context is not JSON"); return undefined; }
  }

  function start(config) {
    var texts = config.texts || {};
    var color = config.button_color || "#2563eb";
    var position = config.position || "bottom-right";
    var wrap = el("div", config.theme === "dark" ? "dark" : "light");
    var vertical = position.indexOf("top") === 0 ? "top" : "bottom";
    var horizontal = position.indexOf("left") > 0 ? "left" : "right";
    host.style.setProperty(vertical, "16px");
    host.style.setProperty(horizontal, "16px");

    var panel = el("div", "panel");
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-label", config.agent_name || "Chat");
    var head = el("div", "head");
    head.style.background = color;
    var title = el("span", "", config.agent_name || "Chat");
    var endButton = el("button", "end", texts.endChatText || "End chat");
    endButton.type = "button";
    var closeButton = el("button", "close", "\u00d7");
    closeButton.type = "button";
    closeButton.setAttribute("aria-label", texts.closeChatLabel || "Close chat");
    var actions = el("span");
    actions.appendChild(endButton);
    actions.appendChild(closeButton);
    head.appendChild(title);
    head.appendChild(actions);
    var log = el("div", "log");
    log.setAttribute("aria-live", "polite");
    var form = el("form");
    var input = el("input");
    input.placeholder = texts.chatInputPlaceholder || "Type a message\u2026";
    input.maxLength = 4000;
    input.setAttribute("aria-label", texts.chatInputPlaceholder || "Message");
    var send = el("button", "send", "\u27a4");
    send.type = "submit";
    send.style.background = color;
    send.setAttribute("aria-label", texts.sendMessageLabel || "Send message");
    form.appendChild(input);
    form.appendChild(send);
    panel.appendChild(head);
    panel.appendChild(log);
    panel.appendChild(form);

    var launcher = el("button", "launcher", config.button_text || "Chat");
    launcher.type = "button";
    launcher.style.background = color;
    if (vertical === "top") { wrap.appendChild(launcher); wrap.appendChild(panel); panel.style.marginTop = "10px"; }
    else { wrap.appendChild(panel); wrap.appendChild(launcher); }
    root.appendChild(wrap);

    var session = null;
    var view = null;
    var busy = false;
    var pending = null;

    function setBusy(value) {
      busy = value;
      input.disabled = value || !view || view.is_completed;
      send.disabled = input.disabled;
      endButton.disabled = value || !view || view.is_completed;
    }

    function render(note) {
      log.textContent = "";
      var turns = view ? view.turns : [];
      for (var i = 0; i < turns.length; i++) {
        var turn = turns[i];
        if (turn.user_message) {
          log.appendChild(el("div", "msg user" + (turn.status === "failed" ? " failed" : ""), turn.user_message.text)).style.background = color;
        }
        if (turn.assistant_message) log.appendChild(el("div", "msg agent", turn.assistant_message.text));
      }
      if (pending !== null) {
        log.appendChild(el("div", "msg user", pending)).style.background = color;
        log.appendChild(el("div", "msg agent typing", "\u2026"));
      }
      if (view && view.is_completed) {
        log.appendChild(el("div", "note", texts.conversationEndedText || "Conversation ended."));
        var again = el("button", "again", texts.startNewChatText || "Start new chat");
        again.type = "button";
        again.className = "launcher";
        again.style.background = color;
        again.addEventListener("click", function () { forget(); open(); });
        log.appendChild(again);
      }
      if (note) log.appendChild(el("div", "note error", note));
      log.scrollTop = log.scrollHeight;
      setBusy(busy);
    }

    function remember() {
      try { sessionStorage.setItem(storageKey, JSON.stringify(session)); } catch (e) { /* storage may be off */ }
    }
    function forget() {
      session = null;
      view = null;
      try { sessionStorage.removeItem(storageKey); } catch (e) { /* storage may be off */ }
    }
    function recalled() {
      try {
        var saved = JSON.parse(sessionStorage.getItem(storageKey) || "null");
        return saved && Date.parse(saved.expires_at) > Date.now() ? saved : null;
      } catch (e) { return null; }
    }

    function connect() {
      var saved = recalled();
      var attempt = saved
        ? request("GET", "/chat/" + encodeURIComponent(saved.session_token)).then(function (v) { session = saved; return v; })
        : Promise.reject(null);
      return attempt.catch(function () {
        var body = { token: token };
        var variables = context();
        if (variables) body.context_variables = variables;
        return request("POST", "/init", body).then(function (opened) {
          session = { session_token: opened.session_token, expires_at: opened.expires_at };
          remember();
          return request("GET", "/chat/" + encodeURIComponent(session.session_token));
        });
      });
    }

    function open() {
      panel.classList.add("open");
      host.setAttribute("data-state", "open");
      if (view) { render(); input.focus(); return; }
      setBusy(true);
      render();
      connect().then(function (v) {
        view = v;
        setBusy(false);
        render();
        input.focus();
      }, function (error) {
        setBusy(false);
        render(error.message);
      });
    }

    launcher.addEventListener("click", function () {
      if (panel.classList.contains("open")) { panel.classList.remove("open"); host.setAttribute("data-state", "ready"); }
      else open();
    });
    closeButton.addEventListener("click", function () { panel.classList.remove("open"); host.setAttribute("data-state", "ready"); });

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var text = input.value.trim();
      if (!text || busy || !session || !view) return;
      input.value = "";
      pending = text;
      setBusy(true);
      render();
      request("POST", "/chat/" + encodeURIComponent(session.session_token) + "/messages", { text: text, expected_revision: view.revision })
        .then(function (v) { view = v; pending = null; setBusy(false); render(); input.focus(); }, function (error) {
          pending = null;
          input.value = text;
          setBusy(false);
          render(error.message);
        });
    });

    endButton.addEventListener("click", function () {
      if (busy || !session || !view || view.is_completed) return;
      setBusy(true);
      request("POST", "/chat/" + encodeURIComponent(session.session_token) + "/end", { expected_revision: view.revision })
        .then(function (v) { view = v; setBusy(false); render(); }, function (error) { setBusy(false); render(error.message); });
    });

    host.setAttribute("data-state", "ready");
    if (config.auto_start === true) open();
  }

  function mount() {
    document.body.appendChild(host);
    request("GET", "/config/" + encodeURIComponent(token)).then(function (config) {
      if (config.widget_type !== "chat") {
        host.setAttribute("data-state", "unsupported");
        console.error("Agentline widget: this script serves chat widgets; voice widgets are not available yet");
        return;
      }
      start(config);
    }, function (error) {
      host.setAttribute("data-state", "refused");
      host.setAttribute("data-reason", error.message);
      console.error("Agentline widget: " + error.message);
    });
  }

  if (document.body) mount();
  else document.addEventListener("DOMContentLoaded", mount);
})();
`

/**
 * `GET /embed/widget.js`: loaded by other websites' pages, so readable cross-origin (also under a host
 * page's `Cross-Origin-Embedder-Policy`); cached for five minutes, so a new version reaches pages soon.
 */
export const routeLayer = HttpApiBuilder.Router.use((router) =>
  router.get(
    WIDGET_PATH,
    Effect.succeed(HttpServerResponse.text(WIDGET_SCRIPT, {
      contentType: "text/javascript; charset=utf-8",
      headers: {
        "cache-control": "public, max-age=300",
        "x-content-type-options": "nosniff",
        "cross-origin-resource-policy": "cross-origin",
        "access-control-allow-origin": "*"
      }
    }))
  )
)
