import AuthFlowProviders
import Foundation

/// The application's sessions: random ids with an expiry (in memory here).
actor SessionTable {
    /// How long a session lasts, in seconds.
    static let lifetime: Double = 8 * 3600

    private let clock: any WallClock
    private let random: any SecureRandom
    private var sessions: [String: (userID: String, expiresAt: Double)] = [:]

    /// A table on `clock`, with ids from `random`.
    init(clock: any WallClock, random: any SecureRandom = SystemRandom()) {
        self.clock = clock
        self.random = random
    }

    /// A new session for `userID`; returns its id (32 random bytes, base64url).
    func create(userID: String) -> String {
        let id = Base64URL.encode(random.bytes(32))
        sessions[id] = (userID, clock.now().timeIntervalSince1970 + Self.lifetime)
        return id
    }

    /// The user of session `id`, or `nil` when unknown or expired.
    func user(of id: String) -> String? {
        guard let session = sessions[id] else { return nil }
        guard session.expiresAt > clock.now().timeIntervalSince1970 else {
            sessions[id] = nil
            return nil
        }
        return session.userID
    }

    /// Ends session `id`.
    func end(_ id: String) { sessions[id] = nil }
}
