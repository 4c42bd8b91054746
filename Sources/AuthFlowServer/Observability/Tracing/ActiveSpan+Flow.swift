import AuthFlow
import Foundation

extension ActiveSpan {
    /// The span event each step of a sign-in becomes when it succeeded (docs/tracing.md lists them).
    static func eventName(_ step: TraceEvent.Step) -> String {
        switch step {
        case .authorizationRedirect: "flow.started"
        case .callback: "flow.state_verified"
        case .tokenExchange: "token.exchanged"
        case .jwks: "jwks.obtained"
        case .idTokenVerification: "id_token.verified"
        case .userinfo: "userinfo.fetched"
        case .complete: "identity.established"
        }
    }

    /// Adds the sign-in's steps to the request's span as events, at the time each ended: a succeeded step by its
    /// name, a failed one as `flow.refused` with its step and error code. Only step names, check names and codes
    /// are recorded, never a value of the flow.
    package static func recordFlow(_ trace: [TraceEvent]) {
        guard let span = current, !trace.isEmpty else { return }
        for step in trace {
            var attributes = [
                SpanAttribute("flow.step", .string(step.step.rawValue)),
                SpanAttribute("flow.provider_round_trip", .bool(step.providerRoundTrip)),
            ]
            if !step.checks.isEmpty { attributes.append(SpanAttribute("flow.checks", .strings(step.checks))) }
            let name: String
            switch step.outcome {
            case .succeeded:
                name = eventName(step.step)
            case .failed(let code):
                name = "flow.refused"
                attributes.append(SpanAttribute("error.type", .string(code.rawValue)))
            }
            span.add(
                SpanEvent(
                    name: name, time: Tracer.nanoseconds(step.startedAt.addingTimeInterval(step.duration)),
                    attributes: attributes))
        }
    }
}
