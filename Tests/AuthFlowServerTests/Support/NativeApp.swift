import AuthFlow
import AuthFlowBrowserTestSupport
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowSandbox
import Foundation
import Testing

@testable import AuthFlowServer

/// A native app talking to a deployment: it asks the server for a nonce, the sandbox's SDK stand-in
/// (`POST /_sandbox/{provider}/native`) for an ID token, and trades the token for a bearer session.
enum NativeApp {
    static let bundleID = "com.example.ios"
    static let androidClient = "987-android.apps.googleusercontent.com"
    static let facebookAppID = "1234567890"

    /// Settings with native sign-in on for Apple (a bundle id), Google (an Android client) and Facebook (the app).
    static var settings: TestDeployment.Settings {
        var settings = TestDeployment.Settings()
        settings.nativeClients = [
            "apple": [bundleID], "google": [androidClient], "facebook": [facebookAppID],
        ]
        return settings
    }

    /// What the SDK hands the app.
    struct Credential {
        var idToken: String
        var code: String?
    }

    /// The lowercase hex SHA-256 of `text` (what apps pass to Apple and Google when they keep the raw nonce).
    static func hashed(_ text: String) -> String {
        Digest.sha256(Array(text.utf8)).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }
}

/// A JSON-answering HTTP exchange.
struct JSONAnswer {
    let response: HTTPClientResponse
    var status: Int { response.status }
    var json: JSONValue? { try? JSONValue.parse(response.body) }
    var error: String? { json?["error"]?.stringValue }
    subscript(key: String) -> String? { json?[key]?.stringValue }
}

extension TestDeployment {
    /// `POST url` with a JSON body (or none) and extra headers, as an app would (no Origin, no cookies).
    func postJSON(_ url: String, _ body: JSONValue?, headers: [(String, String)] = []) async throws -> JSONAnswer {
        var request = HTTPClientRequest(method: "POST", url: url)
        request.headers["Accept"] = "application/json"
        if let body {
            request.headers["Content-Type"] = "application/json"
            request.body = Array(body.serialized().utf8)
        }
        for (name, value) in headers { request.headers[name] = value }
        request.timeout = 60
        return JSONAnswer(response: try await CurlHTTPClient().send(request))
    }

    /// `GET path` of the app with `Authorization: Bearer token` (and any other headers).
    func getWithBearer(_ path: String, _ token: String, headers: [(String, String)] = []) async throws -> JSONAnswer {
        var request = HTTPClientRequest(method: "GET", url: appURL + path)
        request.headers["Accept"] = "application/json"
        request.headers["Authorization"] = "Bearer \(token)"
        for (name, value) in headers { request.headers[name] = value }
        return JSONAnswer(response: try await CurlHTTPClient().send(request))
    }

    /// A fresh nonce from `POST /auth/{provider}/native/nonce`.
    func nativeNonce(_ provider: String) async throws -> String {
        let answer = try await postJSON("\(appURL)/auth/\(provider)/native/nonce", nil)
        try #require(answer.status == 200, "nonce answered \(answer.status): \(answer.response.text)")
        return try #require(answer["nonce"])
    }

    /// The sandbox's native token for `identity` with `audience`, carrying `tokenNonce` (none when `nil`).
    func sandboxCredential(
        _ provider: String, as identity: SandboxIdentity, audience: String, tokenNonce: String?,
        authorizedParty: String? = nil
    ) async throws -> NativeApp.Credential {
        var identityJSON: [String: JSONValue] = ["subject": .string(identity.subject)]
        if let email = identity.email { identityJSON["email"] = .string(email) }
        if let given = identity.givenName { identityJSON["given_name"] = .string(given) }
        if let family = identity.familyName { identityJSON["family_name"] = .string(family) }
        var body: [String: JSONValue] = ["identity": .object(identityJSON), "audience": .string(audience)]
        if let tokenNonce { body["nonce"] = .string(tokenNonce) }
        if let authorizedParty { body["authorized_party"] = .string(authorizedParty) }
        let answer = try await postJSON("\(sandbox.baseURL)/_sandbox/\(provider)/native", .object(body))
        try #require(answer.status == 200, "sandbox answered \(answer.status): \(answer.response.text)")
        return NativeApp.Credential(idToken: try #require(answer["id_token"]), code: answer["code"])
    }

    /// `POST /auth/{provider}/native` with `body`.
    func nativeSignIn(_ provider: String, _ body: [String: JSONValue], headers: [(String, String)] = [])
        async throws -> JSONAnswer
    {
        try await postJSON("\(appURL)/auth/\(provider)/native", .object(body), headers: headers)
    }

    /// A whole native sign-in as an app following the documented sequence (hashed nonce to the provider, raw
    /// nonce to the server); returns the server's answer.
    func nativeSignIn(
        _ provider: String, as identity: SandboxIdentity, audience: String? = nil, authorizedParty: String? = nil,
        hashNonce: Bool = true, sendCode: Bool = true, user: JSONValue? = nil
    ) async throws -> JSONAnswer {
        let nonce = try await nativeNonce(provider)
        let audience =
            audience
            ?? (provider == "apple"
                ? NativeApp.bundleID
                : provider == "google" ? TestDeployment.clientIDs["google"]! : NativeApp.facebookAppID)
        let party = authorizedParty ?? (provider == "google" ? NativeApp.androidClient : nil)
        let credential = try await sandboxCredential(
            provider, as: identity, audience: audience, tokenNonce: hashNonce ? NativeApp.hashed(nonce) : nonce,
            authorizedParty: party)
        var body: [String: JSONValue] = ["id_token": .string(credential.idToken), "nonce": .string(nonce)]
        if sendCode, let code = credential.code { body["code"] = .string(code) }
        if let user { body["user"] = user }
        return try await nativeSignIn(provider, body)
    }
}
