// (2) The bare SignIn driver in a backend that keeps its own sessions and its own user table.
//
//     swift run OwnSessions providers.yaml
//
// AuthFlow runs the OAuth flow (redirect, callback, code exchange, ID token or profile checks) and hands
// back a verified identity; everything after that (users, sessions, cookies) is this backend's.
// Routes: GET /auth/{provider}/login, GET|POST /auth/{provider}/callback, GET /me, POST /logout.
import AuthFlowCurl
import AuthFlowHTTPServer
import AuthFlowProviders
import EmbeddingSupport

let configuration = ExampleConfiguration.load()
guard let server = configuration.server else {
    ExampleConfiguration.fail("providers.yaml needs a server: section (listen and public_url)")
}
let clock = SystemClock()
let httpClient = CurlHTTPClient()
let providers: [ResolvedProvider]
do {
    // Asynchronous: a `type: oidc` provider's discovery document is fetched here, once.
    providers = try await ProviderRegistry.standard.resolve(configuration, httpClient: httpClient)
} catch {
    ExampleConfiguration.fail("\(error)")
}
let signIn = SignIn(
    providers: providers, httpClient: httpClient, flowStore: MemoryStores(clock: clock).flows, clock: clock)
// Flow cookies are sealed under a key from server.secret (every instance must share it), or, without one, a
// key drawn for this run.
let seal: FlowRecordSeal
do {
    seal = try FlowRecordSeal(
        secret: server.secret.map { Array($0.value.utf8) } ?? SystemRandom().bytes(32), random: SystemRandom())
} catch {
    ExampleConfiguration.fail("cannot derive the flow-cookie key: \(error)")
}
let backend = Backend(
    signIn: signIn, seal: seal, users: UserTable(), sessions: SessionTable(clock: clock),
    secureCookies: server.publicURL.hasPrefix("https://"))

let http = HTTPServer(configuration: .init(host: server.listen.host, port: server.listen.port)) { request in
    await backend.handle(request)
}
do {
    let port = try http.start()
    Console.say("OwnSessions listening on http://\(server.listen.host):\(port) (public URL \(server.publicURL))")
} catch {
    ExampleConfiguration.fail("cannot listen on \(server.listen.host):\(server.listen.port): \(error)")
}
await Termination.wait()
await http.stop()
