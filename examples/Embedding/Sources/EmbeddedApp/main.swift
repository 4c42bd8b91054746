// (1) An application with its own routes that mounts AuthFlow's sign-in server under /auth/.
//
//     swift run EmbeddedApp providers.yaml
//
// `/` links to each provider's login, `/app` is a protected page that greets the signed-in user, and
// every `/auth/...` route (login, callback, session, logout, ...) is AuthFlow's.
import AuthFlowDeployment
import EmbeddingSupport

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
        configuration: configuration, registry: .standard, stores: stores, httpClient: CurlHTTPClient(),
        clock: clock, random: random)
} catch {
    ExampleConfiguration.fail("cannot set up sign-in: \(error)")
}

let app = App(signIn: signIn)
// With `signIn:`, each sign-in route's body limit is known before the body is read (the app's own pages take the
// configuration's 64 KiB), and a `/auth/check` whose session is cached is answered right on the server's polling
// thread (no task).
let http = HTTPServer(configuration: .init(host: server.listen.host, port: server.listen.port), signIn: signIn) {
    request in
    await app.handle(request)
}
do {
    let port = try http.start()
    Console.say("EmbeddedApp listening on http://\(server.listen.host):\(port) (public URL \(server.publicURL))")
} catch {
    ExampleConfiguration.fail("cannot listen on \(server.listen.host):\(server.listen.port): \(error)")
}
await Termination.wait()
await http.stop()
