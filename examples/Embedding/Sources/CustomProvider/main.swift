// (3) A provider plugin defined in the application: `type: corp` next to the standard types.
//
//     swift run CustomProvider providers.yaml
//
// providers.yaml then configures it like any other provider:
//
//     providers:
//       corp:
//         type: corp
//         client_id: my-app
//         client_secret: ${CORP_CLIENT_SECRET}
//
// and `authflow matrix`-style reports, sign-in routes and stores treat it like the built-in ones. Its
// server-to-server events arrive at `POST /auth/corp/events` (CorpSSOPlugin+Events.swift).
import AuthFlowDeployment
import EmbeddingSupport

var registry = ProviderRegistry.standard
registry.register(CorpSSOPlugin())

let configuration = ExampleConfiguration.load()
guard let server = configuration.server, let secret = server.secret else {
    ExampleConfiguration.fail("providers.yaml needs a server: section with public_url and secret")
}
let clock = SystemClock()
let random = SystemRandom()
let signIn: SignInServer
do {
    let stores = try SignInServer.Stores.open(configuration.store, secret: secret, clock: clock, random: random)
    signIn = try SignInServer(
        configuration: configuration, registry: registry, stores: stores, httpClient: CurlHTTPClient(),
        clock: clock, random: random)
} catch {
    ExampleConfiguration.fail("cannot set up sign-in: \(error)")
}

let http = HTTPServer(configuration: .init(host: server.listen.host, port: server.listen.port), signIn: signIn)
do {
    let port = try http.start()
    Console.say(
        "CustomProvider listening on http://\(server.listen.host):\(port) with providers: "
            + signIn.providerNames.joined(separator: ", "))
} catch {
    ExampleConfiguration.fail("cannot listen on \(server.listen.host):\(server.listen.port): \(error)")
}
await Termination.wait()
await http.stop()
