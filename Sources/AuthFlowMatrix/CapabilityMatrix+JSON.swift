import AuthFlow

extension CapabilityMatrix {
    /// The JSON contract (docs/configuration.md, "The capability matrix as JSON"), including `source` (when known),
    /// `display_name`, `reason` for unsupported capabilities, `advisory_details` (code, severity, capability, finding,
    /// change), and `native` (`support`: `supported` or `unsupported`, `enabled`, `clients`: the `native_clients`), and
    /// `provider_logout` (`support`: `supported` when the provider has an end-session endpoint, else `unsupported`:
    /// logout is local only).
    func renderJSON() -> String {
        var members: [JSONDocument.Member] = []
        if let source { members.append(.init("source", .string(source))) }
        members.append(.init("providers", .array(rows.map(Self.json(for:)))))
        return JSONDocument.object(members).printed()
    }

    static func json(for row: MatrixRow) -> JSONDocument {
        let capabilities = row.capabilities.map { state -> JSONDocument.Member in
            var fields: [JSONDocument.Member] = [
                .init("support", .string(state.support.kind)), .init("enabled", .bool(state.enabled)),
            ]
            if let reason = state.reason { fields.append(.init("reason", .string(reason))) }
            return .init(state.capability.rawValue, .object(fields))
        }
        let details = row.advisories.map { advisory -> JSONDocument in
            .object([
                .init("code", .string(advisory.code.rawValue)), .init("severity", .string(advisory.severity.rawValue)),
                .init("capability", advisory.capability.map { .string($0.rawValue) } ?? .null),
                .init("finding", .string(advisory.finding)), .init("change", .string(advisory.changeText)),
            ])
        }
        let profile: JSONDocument = row.profile.map { .string($0) } ?? .null
        return .object([
            .init("name", .string(row.name)),
            .init("type", .string(row.type)),
            .init("display_name", .string(row.displayName)),
            .init("protocol", .string(row.signInProtocol.rawValue)),
            .init("identity_source", .string(row.identitySource.rawValue)),
            .init("client_auth", row.signInProtocol == .webAuthn ? .null : .string(row.clientAuthentication.rawValue)),
            .init("par", .bool(row.pushedAuthorization)),
            .init("request_object", .bool(row.signedRequestObject)),
            .init("dpop", .bool(row.dpop)),
            .init("profile", profile),
            .init("callback_method", row.signInProtocol == .webAuthn ? .null : .string(row.callbackMethod.rawValue)),
            .init("email_linkable", .string(row.emailLinkability.summary)),
            .init("round_trips", .integer(row.roundTrips)),
            .init("capabilities", .object(capabilities)),
            .init("advisories", .array(row.advisories.map { .string($0.text) })),
            .init("advisory_details", .array(details)),
            .init(
                "native",
                .object([
                    .init("support", .string(row.nativeSupported ? "supported" : "unsupported")),
                    .init("enabled", .bool(row.nativeSupported && !row.nativeClients.isEmpty)),
                    .init("clients", .array(row.nativeClients.map { .string($0) })),
                ])),
            .init(
                "provider_logout",
                .object([.init("support", .string(row.providerLogout ? "supported" : "unsupported"))])),
        ])
    }
}
