import AuthFlow
import AuthFlowHTTP
import AuthFlowJOSE
import AuthFlowProviders
import Foundation
import FuzzSupport

// `rateLimits:` is the package initialiser of the options.
@testable import AuthFlowServer

/// `GET /auth/forward/RULES` (Caddy's `forward_auth`, Traefik's `forwardAuth`) with a rules segment, the
/// `X-Forwarded-*`, `Accept`, `User-Agent` and `Cookie` headers and the peer's trust all of the input's choosing
/// (docs/forward-auth.md). What must hold for every input:
/// - without the signed-in session's cookie the answer is never 2xx: nothing the client sends skips the check;
/// - a peer outside `server.trusted_proxies` gets the same answer with or without its `X-Forwarded-*` headers;
/// - a 302 goes to this server's own sign-in, and its `return_to` is a path or this server's origin;
/// - every answer is 202, 302 or a typed 400/401/403 (404 off the route), never 500 or a crash.
///
/// Input: the first byte chooses the peer's trust (bit 0) and whether the session cookie is sent (bit 1); then
/// lines: the first is the rules segment (percent-encoded as it is in a path), the others `Name: value` headers.
let publicURL = "https://app.example"
let clock = FixedClock(FixedKeys.now)
let memory = MemoryStores(clock: clock)
let stores = SignInServer.Stores(flows: memory.flows, accounts: memory.accounts, sessions: memory.sessions)
let sessionID = "fuzz-session-0123456789abcdef0123456789abcdef"

let server: SignInServer = {
    let settings = ProviderSettings(
        name: "google", type: "google", clientID: "fuzz-client.apps.googleusercontent.com",
        clientSecret: Secret("fuzz-google-secret"),
        location: SourceLocation(fileName: "fuzz.yaml", line: 1, column: 1, sourceLine: nil))
    do {
        let provider = try ProviderRegistry.standard.resolve(settings, publicURL: publicURL)
        return SignInServer(
            options: SignInServer.Options(
                publicURL: publicURL, secret: Secret("fuzz-secret-0123456789abcdef-0123456789"),
                allowedReturnTo: ["/", "https://other.example"], rateLimits: nil),
            providers: [provider], stores: stores, httpClient: NoNetwork(), clock: clock)
    } catch {
        fatalError("the fuzz server does not start: \(error)")
    }
}()

/// The harness never reaches a provider: a forward-auth check makes no outgoing call.
struct NoNetwork: HTTPClient {
    func send(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
        fatalError("forward auth made an outgoing request to \(request.url)")
    }
}

/// A signed-in user in the groups `admins` and `ops`, with the session `sessionID`.
let prepared: Bool = blocking {
    let user = UserID(rawValue: "fuzz-user")
    let identity = IdentityKey(provider: "google", subject: "fuzz-subject")
    do {
        _ = try await memory.accounts.createUser(
            user, identity: identity, profile: IdentityProfile(email: "fuzz@app.example", emailVerified: true),
            tokens: nil)
        try await memory.sessions.createSession(
            id: sessionID,
            record: SessionRecord(
                userID: user, provider: "google", subject: "fuzz-subject", createdAt: FixedKeys.now,
                expiresAt: FixedKeys.now.addingTimeInterval(3600), groups: ["admins", "ops"]))
        return true
    } catch {
        fatalError("the fuzz session cannot be stored: \(error)")
    }
}

/// An HTTP header name: one or more token characters (RFC 9110, section 5.1).
func isToken(_ name: String) -> Bool {
    !name.isEmpty
        && name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
        }
}

func answer(_ path: String, _ headers: HTTPHeaders, trusted: Bool) -> HTTPServerResponse {
    blocking {
        await server.handle(
            HTTPServerRequest(
                method: "GET", path: path, headers: headers, remoteAddress: "127.0.0.1", viaTrustedProxy: trusted))
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzForwardAuth(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = bytes(data, count)
    guard prepared, let flags = input.first else { return 0 }
    let trusted = flags & 1 == 1
    let signedIn = flags & 2 == 2
    let lines = String(decoding: input.dropFirst(), as: UTF8.self).split(
        separator: "\n", maxSplits: 12, omittingEmptySubsequences: false)
    let rules = lines.first.map(String.init) ?? ""
    let path = rules.isEmpty ? "/auth/forward" : "/auth/forward/" + rules
    guard !path.contains("?"), !path.contains("#"), !path.contains(" ") else { return 0 }
    var headers = HTTPHeaders()
    var plain = HTTPHeaders()  // the same request without the forwarded headers
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        let name = String(line[..<colon])
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        guard isToken(name), !value.contains(where: { $0 == "\r" || $0 == "\0" }),
            name.lowercased() != "cookie" || !signedIn
        else { continue }
        headers.add(name, value)
        if !name.lowercased().hasPrefix("x-forwarded-") { plain.add(name, value) }
    }
    if signedIn {
        headers.add("Cookie", "authflow_session=" + sessionID)
        plain.add("Cookie", "authflow_session=" + sessionID)
    }
    let response = answer(path, headers, trusted: trusted)
    // 404: a segment the router does not take as the rules (a further `/`, a character a path cannot hold).
    guard [202, 302, 400, 401, 403, 404].contains(response.status) else {
        fatalError("forward auth answered \(response.status) to \(path)")
    }
    if (200..<300).contains(response.status) && !signedIn {
        // Any cookie here is of the input's making, not the session: the check must not pass on it.
        fatalError("forward auth passed a request without a session")
    }
    if response.status == 302 {
        let location = response.headers["Location"] ?? ""
        guard location.hasPrefix(publicURL + "/auth/google/login") else {
            fatalError("forward auth sent the browser to \(location)")
        }
        if let query = location.split(separator: "?", maxSplits: 1).dropFirst().first {
            for (name, value) in FormURLEncoding.decode(String(query)) where name == "return_to" {
                let other = value == "https://other.example" || value.hasPrefix("https://other.example/")
                guard value.hasPrefix("/") && !value.hasPrefix("//") || other else { fatalError("forward auth returns the browser to \(value)") }
            }
        }
    }
    if !trusted {
        let without = answer(path, plain, trusted: false)
        guard without.status == response.status, without.headers["Location"] == response.headers["Location"] else {
            fatalError("X-Forwarded-* from an untrusted peer changed the answer to \(path)")
        }
    }
    return 0
}
