import AuthFlow
import AuthFlowHTTP
import AuthFlowServer

extension DemoSite {
    /// The passkey part of the home page: signed out, "Sign in with a passkey" (also offered by the browser's
    /// autofill on the user name field, `autocomplete="username webauthn"`) and "Create an account with a passkey";
    /// signed in, "Add a passkey". Element ids (browser tests): `passkey-name`, `passkey-signin-{name}`,
    /// `passkey-signup-{name}`, `passkey-add-{name}`, `passkey-status`.
    func passkeySection(signedIn: Bool) -> String {
        let names = server.providerNames.filter { server.providers[$0]?.signInProtocol == .webAuthn }
        guard !names.isEmpty else { return "" }
        let prefix = HTML.escape(server.options.pathPrefix)
        var html = "<div id=\"passkeys\">\n"
        if !signedIn {
            html +=
                "<p><label>User name <input id=\"passkey-name\" autocomplete=\"username webauthn\" "
                + "data-passkey-autofill=\"\(prefix)/\(HTML.escape(names[0]))\"></label></p>\n"
        }
        for name in names.map(HTML.escape) {
            let base = "\(prefix)/\(name)"
            if signedIn {
                html +=
                    "<button type=\"button\" id=\"passkey-add-\(name)\" data-passkey-action=\"register\" "
                    + "data-passkey-base=\"\(base)\">Add a passkey</button>\n"
            } else {
                html +=
                    "<button type=\"button\" id=\"passkey-signin-\(name)\" data-passkey-action=\"authenticate\" "
                    + "data-passkey-base=\"\(base)\">Sign in with a passkey</button>\n"
                    + "<button type=\"button\" id=\"passkey-signup-\(name)\" data-passkey-action=\"register\" "
                    + "data-passkey-base=\"\(base)\">Create an account with a passkey</button>\n"
            }
        }
        html += "<p id=\"passkey-status\" role=\"status\"></p>\n</div>\n"
        html += "<script src=\"/passkeys.js\"></script>\n"
        return html
    }

    /// `GET /passkeys.js`: the script that turns the JSON forms of the passkey routes into
    /// `navigator.credentials` calls and back (docs/server.md#passkeys).
    func passkeyScript() -> HTTPServerResponse {
        var response = HTTPServerResponse(status: 200, body: Array(Self.passkeyJavaScript.utf8))
        response.headers["Content-Type"] = "text/javascript; charset=utf-8"
        response.headers["Cache-Control"] = "no-cache"
        return response
    }

    /// Uses `PublicKeyCredential.parseCreationOptionsFromJSON`, `parseRequestOptionsFromJSON` and `toJSON()`
    /// (WebAuthn Level 3) where the browser has them, and converts the base64url members itself where it does
    /// not.
    static let passkeyJavaScript = #"""
        // AuthFlow passkeys: the JSON of the passkey routes to and from navigator.credentials.
        (function () {
          "use strict";
          function decode(text) {
            const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
            const binary = atob(base64 + "===".slice((base64.length + 3) % 4));
            return Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer;
          }
          function encode(buffer) {
            const bytes = new Uint8Array(buffer);
            let binary = "";
            for (const byte of bytes) binary += String.fromCharCode(byte);
            return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
          }
          function withIDs(list) { return (list || []).map((c) => Object.assign({}, c, { id: decode(c.id) })); }
          function creationOptions(json) {
            if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
            return Object.assign({}, json, {
              challenge: decode(json.challenge), user: Object.assign({}, json.user, { id: decode(json.user.id) }),
              excludeCredentials: withIDs(json.excludeCredentials),
            });
          }
          function requestOptions(json) {
            if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
            return Object.assign({}, json, { challenge: decode(json.challenge), allowCredentials: withIDs(json.allowCredentials) });
          }
          function toJSON(credential) {
            if (typeof credential.toJSON === "function") return credential.toJSON();
            const r = credential.response;
            const json = { id: credential.id, rawId: encode(credential.rawId), type: credential.type,
              clientExtensionResults: credential.getClientExtensionResults(), response: { clientDataJSON: encode(r.clientDataJSON) } };
            if (r.attestationObject) {
              json.response.attestationObject = encode(r.attestationObject);
              json.response.transports = r.getTransports ? r.getTransports() : [];
            } else {
              json.response.authenticatorData = encode(r.authenticatorData);
              json.response.signature = encode(r.signature);
              json.response.userHandle = r.userHandle ? encode(r.userHandle) : null;
            }
            return json;
          }
          async function post(url, body) {
            const response = await fetch(url, { method: "POST", credentials: "same-origin",
              headers: { "Content-Type": "application/json", "Accept": "application/json" }, body: JSON.stringify(body) });
            const json = await response.json();
            if (!response.ok) throw new Error(json.error + ": " + json.message);
            return json;
          }
          async function register(base, name) {
            const options = await post(base + "/register/options", name ? { name: name } : {});
            const credential = await navigator.credentials.create({ publicKey: creationOptions(options.publicKey) });
            return post(base + "/register", { ceremony: options.ceremony, credential: toJSON(credential) });
          }
          async function authenticate(base, mediation, signal) {
            const options = await post(base + "/authenticate/options", {});
            const credential = await navigator.credentials.get({ publicKey: requestOptions(options.publicKey), mediation: mediation, signal: signal });
            return post(base + "/authenticate", { ceremony: options.ceremony, credential: toJSON(credential) });
          }
          window.AuthFlowPasskeys = { register: register, authenticate: authenticate };
          let autofill = null;
          function status(text) { const node = document.getElementById("passkey-status"); if (node) node.textContent = text; }
          function wire() {
            const field = document.querySelector("[data-passkey-autofill]");
            for (const button of document.querySelectorAll("[data-passkey-action]")) {
              button.addEventListener("click", async function () {
                if (autofill) autofill.abort();
                const base = button.getAttribute("data-passkey-base");
                try {
                  if (button.getAttribute("data-passkey-action") === "register") {
                    await register(base, field ? field.value : "");
                  } else {
                    await authenticate(base);
                  }
                  location.reload();
                } catch (error) { status(String(error.message || error)); }
              });
            }
            // The browser's autofill offers the passkeys once the user name field has the focus.
            if (field && window.PublicKeyCredential && PublicKeyCredential.isConditionalMediationAvailable) {
              field.addEventListener("focus", function () {
                PublicKeyCredential.isConditionalMediationAvailable().then(function (available) {
                  if (!available || autofill) return;
                  autofill = new AbortController();
                  authenticate(field.getAttribute("data-passkey-autofill"), "conditional", autofill.signal)
                    .then(function () { location.reload(); }, function () { autofill = null; });
                });
              }, { once: true });
            }
          }
          if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire); else wire();
        })();
        """#
}
