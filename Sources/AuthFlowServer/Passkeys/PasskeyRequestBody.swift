import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowJSON

/// The JSON object body of a passkey route (an empty body reads as `{}`), with typed refusals: ``ServerError``
/// `invalid_request` (400) saying what was expected and what was found.
struct PasskeyRequestBody {
    let object: [String: JSONValue]
    let provider: String

    /// Parses `request`'s body.
    ///
    /// - Throws: ``ServerError`` `invalid_request` (400) for a body over the limit or not a JSON object.
    init(_ request: HTTPServerRequest, provider: String) throws(ServerError) {
        self.provider = provider
        guard request.body.count <= PasskeyRoutes.maximumBodyBytes else {
            throw Self.refuse(
                "expected a JSON body of at most \(PasskeyRoutes.maximumBodyBytes) bytes, found more",
                provider: provider)
        }
        if request.body.isEmpty {
            self.object = [:]
            return
        }
        guard let json = try? JSONValue.parse(request.body), let object = json.objectValue else {
            throw Self.refuse("expected a JSON object body, found bytes that are not one", provider: provider)
        }
        self.object = object
    }

    func refuse(_ message: String) -> ServerError { Self.refuse(message, provider: provider) }

    static func refuse(_ message: String, provider: String) -> ServerError {
        ServerError(.invalidRequest, message, status: 400, provider: provider)
    }

    /// The non-empty string `key` (at most `limit` characters, no control characters), or `nil` when absent or
    /// null.
    func string(_ key: String, limit: Int = 256) throws(ServerError) -> String? {
        guard let value = object[key], value != .null else { return nil }
        guard let text = value.stringValue, !text.isEmpty, text.count <= limit,
            !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw refuse(
                "expected '\(key)' to be a string of 1 to \(limit) characters without control characters, found another "
                    + "value")
        }
        return text
    }

    /// `session`: `cookie` (the default) or `bearer`.
    func sessionKind() throws(ServerError) -> SessionKind {
        switch try string("session") {
        case nil, "cookie"?: return .cookie
        case "bearer"?: return .bearer
        default: throw refuse("expected 'session' to be cookie or bearer, found another value")
        }
    }

    /// The base64url bytes of the string `key`, required.
    func bytes(_ key: String) throws(ServerError) -> [UInt8] {
        guard let text = try string(key, limit: 2048), let bytes = try? Base64URL.decode(text), !bytes.isEmpty else {
            throw refuse("expected '\(key)' to be a base64url string, found none or another value")
        }
        return bytes
    }
}
