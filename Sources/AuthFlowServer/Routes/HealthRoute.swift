import AuthFlow
import AuthFlowHTTP

/// `GET /healthz`: whether the stores answer.
struct HealthRoute: Sendable {
    let stores: SignInServer.Stores

    /// 200 `{"status":"ok"}` when the account, session and flow stores answer; otherwise 503
    /// `{"status":"unavailable","store":NAME,"backend":KIND,"error":CODE}` naming the first store that does not
    /// and the kind of server behind it (`memory`, `sqlite`, `postgres`, `redis`; `custom` for a store that
    /// does not say).
    func health() async -> HTTPServerResponse {
        func unavailable(_ store: String, _ backend: any Sendable, _ code: String) -> HTTPServerResponse {
            ResponseFactory.json(
                .object([
                    "status": .string("unavailable"), "store": .string(store),
                    "backend": .string((backend as? any StoreBackendNaming)?.backendName ?? "custom"),
                    "error": .string(code),
                ]),
                status: 503)
        }
        do throws(StoreError) {
            try await stores.accounts.checkHealth()
        } catch {
            return unavailable("accounts", stores.accounts, error.code.rawValue)
        }
        do throws(StoreError) {
            try await stores.sessions.checkHealth()
        } catch {
            return unavailable("sessions", stores.sessions, error.code.rawValue)
        }
        do throws(FlowStoreError) {
            try await stores.flows.checkHealth()
        } catch {
            return unavailable("flows", stores.flows, error.code.rawValue)
        }
        return ResponseFactory.json(.object(["status": .string("ok")]))
    }
}
