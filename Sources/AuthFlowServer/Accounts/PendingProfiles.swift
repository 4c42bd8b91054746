import AuthFlow
import AuthFlowJOSE
import Foundation

/// Apple's first-login names, parked in the account store between the callback that carried them and the sign-in
/// that keeps them (Apple sends the name once). Built once per server.
struct PendingProfiles: Sendable {
    let stores: SignInServer.Stores
    let logger: any ServerLogger

    /// The most UTF-8 bytes kept of each part of a first-login name.
    static var maximumNamePartBytes: Int { 200 }

    /// The pending-profile key of a flow: a digest, so the store never sees the state itself.
    static func key(provider: String, state: String) -> String {
        "flow:" + Base64URL.encode(Digest.sha256(Array("authflow pending-profile \(provider) \(state)".utf8)))
    }

    /// `text` cut to at most `bytes` UTF-8 bytes, on a character boundary.
    static func capped(_ text: String, bytes: Int) -> String {
        guard text.utf8.count > bytes else { return text }
        var result = ""
        var used = 0
        for character in text {
            let size = character.utf8.count
            guard used + size <= bytes else { break }
            result.append(character)
            used += size
        }
        return result
    }

    /// Takes the first-login name parked under `key`; `nil` without one (or when the store fails: logged).
    func take(_ key: String?) async -> PendingProfile? {
        guard let key else { return nil }
        do throws(StoreError) {
            return try await stores.accounts.takePendingProfile(key: key)
        } catch {
            logger.log(.warning, "pending profile unavailable", metadata: ["code": error.code.rawValue])
            return nil
        }
    }

    /// Parks `profile` again (a sign-in that took it failed).
    func restore(_ profile: PendingProfile) async {
        do throws(StoreError) {
            try await stores.accounts.putPendingProfile(profile)
        } catch {
            logger.log(.warning, "pending profile not restored", metadata: ["code": error.code.rawValue])
        }
    }
}
