import AuthFlow
import AuthFlowHTTP

extension NativeRoutes {
    /// The body of `POST /auth/{provider}/native`: a JSON object with strings `id_token` and `nonce`, optional
    /// string `code`, `user` (an object or its JSON text) and `intent` (`login`, `register`, `link`).
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) saying what was expected and found.
    static func nativeBody(_ request: HTTPServerRequest, provider name: String) throws(ServerError)
        -> NativeSignIn.Request
    {
        func refuse(_ message: String) -> ServerError {
            ServerError(.invalidRequest, message, status: 400, provider: name)
        }
        guard request.body.count <= maximumNativeBodyBytes else {
            throw refuse("expected a JSON body of at most \(maximumNativeBodyBytes) bytes, found more")
        }
        guard let json = try? JSONValue.parse(request.body), let object = json.objectValue else {
            throw refuse("expected a JSON object body {\"id_token\", \"nonce\", ...}, found other bytes")
        }
        func string(_ key: String, required: Bool) throws(ServerError) -> String? {
            guard let value = object[key], value != .null else {
                if required { throw refuse("expected a string '\(key)', found none") }
                return nil
            }
            guard let text = value.stringValue, !text.isEmpty else {
                throw refuse("expected '\(key)' to be a non-empty string, found another value")
            }
            return text
        }
        let idToken = try string("id_token", required: true) ?? ""
        let nonce = try string("nonce", required: true) ?? ""
        let code = try string("code", required: false)
        var user: String?
        switch object["user"] {
        case nil, .null?: user = nil
        case .string(let text)?: user = text
        case let value? where value.objectValue != nil: user = String(decoding: value.serializedBytes(), as: UTF8.self)
        default: throw refuse("expected 'user' to be an object or its JSON text, found another value")
        }
        var intent = SignInIntent.login
        if let text = try string("intent", required: false) {
            guard let parsed = SignInIntent(rawValue: text) else {
                throw refuse("expected 'intent' to be login, register or link, found another value")
            }
            intent = parsed
        }
        return NativeSignIn.Request(idToken: idToken, nonce: nonce, code: code, user: user, intent: intent)
    }
}
