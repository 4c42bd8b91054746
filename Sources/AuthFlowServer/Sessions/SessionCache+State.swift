import AuthFlowHTTP
import Foundation

extension SessionCache {
    /// A session found valid, shared by the requests it answers (a reference: a lookup copies no session fields).
    final class Entry: Sendable {
        let session: CurrentSession
        let storedAt: Date
        /// `/auth/check`'s answer for this session asked without a query, made once when the entry is stored
        /// (``SessionCache/prepare``); `nil` for a bearer session or one the check refuses, which the task path
        /// answers.
        let checkAnswer: HTTPServerResponse?

        init(session: CurrentSession, storedAt: Date, checkAnswer: HTTPServerResponse?) {
            self.session = session
            self.storedAt = storedAt
            self.checkAnswer = checkAnswer
        }
    }

    /// A store read in flight for one session id, begun at `epoch`, and the requests waiting for it.
    struct Flight {
        let token: UInt64
        let epoch: UInt64
        var waiters: [CheckedContinuation<Shared, Never>] = []
    }

    /// A request waiting for a read in flight.
    typealias Waiter = CheckedContinuation<Shared, Never>

    /// What a waiting request gets from the read it joined.
    enum Shared {
        /// The read's answer (`nil`: no valid session), with no change since it began.
        case answer(CurrentSession?)
        /// A change happened, or the read failed: read the stores yourself.
        case readYourself
    }

    /// What a lookup does next: answer from the cache, join the read in flight, or lead a new one.
    enum Step {
        case cached(CurrentSession)
        case join(UInt64)
        case lead(token: UInt64, epoch: UInt64)
    }

    struct State {
        var epoch: UInt64 = 0
        var entries: [String: Entry] = [:]
        var flights: [String: Flight] = [:]
        var nextToken: UInt64 = 0
    }
}
