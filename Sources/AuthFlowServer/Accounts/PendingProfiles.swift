import AuthFlow
import AuthFlowJOSE
import Foundation

extension ServerRoute {
    /// The most UTF-8 bytes kept of each part of a first-login name.
    static var maximumNamePartBytes: Int { 200 }

    /// The pending-profile key of a flow: a digest, so the store never sees the state itself.
    static func pendingProfileKey(provider: String, state: String) -> String {
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
    func takePendingProfile(_ key: String?) async -> PendingProfile? {
        guard let key else { return nil }
        do throws(StoreError) {
            return try await stores.accounts.takePendingProfile(key: key)
        } catch {
            logger.log(.warning, "pending profile unavailable", metadata: ["code": error.code.rawValue])
            return nil
        }
    }

    /// Parks `profile` again (a sign-in that took it failed).
    func restorePendingProfile(_ profile: PendingProfile) async {
        do throws(StoreError) {
            try await stores.accounts.putPendingProfile(profile)
        } catch {
            logger.log(.warning, "pending profile not restored", metadata: ["code": error.code.rawValue])
        }
    }

    /// The tokens of a sign-in as the account store keeps them (it encrypts them); a `nil` refresh token keeps
    /// the stored one.
    func storedTokens(_ tokens: TokenSet) -> StoredTokens {
        StoredTokens(
            accessToken: tokens.accessToken, refreshToken: tokens.refreshToken,
            accessTokenExpiresAt: tokens.expiresIn.map { clock.now().addingTimeInterval(Double($0)) },
            scope: tokens.scope)
    }
}
