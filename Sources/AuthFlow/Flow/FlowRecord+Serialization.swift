import AuthFlowJOSE
import Foundation

extension FlowRecord {
    /// The record as a JSON object (for stores that keep bytes, e.g. Redis or a SQL column).
    ///
    /// `created_at` is in integer milliseconds since 1970.
    package func jsonValue() -> JSONValue {
        var object: [String: JSONValue] = [
            "v": .integer(1),
            "provider": .string(provider),
            "state": .string(state),
            "browser_binding": .string(browserBindingDigest),
            "intent": .string(intent.rawValue),
            "created_at": .integer(Int64((createdAt.timeIntervalSince1970 * 1000).rounded())),
        ]
        if let nonce { object["nonce"] = .string(nonce) }
        if let pkceVerifier { object["pkce_verifier"] = .string(pkceVerifier) }
        if let returnTo { object["return_to"] = .string(returnTo) }
        if let maxAge = stepUp?.maxAge { object["max_age"] = .integer(maxAge) }
        if let acrValues = stepUp?.acrValues, !acrValues.isEmpty {
            object["acr_values"] = .string(acrValues.joined(separator: " "))
        }
        if let dpopKey { object["dpop_jwk"] = dpopKey.exportPrivate() }
        return .object(object)
    }

    /// The record as compact UTF-8 JSON: the bytes of ``jsonValue()`` serialized (members in name order), written
    /// straight into one buffer, since every sign-in start seals a record.
    package func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(
            160 + provider.utf8.count + state.utf8.count + browserBindingDigest.utf8.count
                + (nonce?.utf8.count ?? 0) + (pkceVerifier?.utf8.count ?? 0) + (returnTo?.utf8.count ?? 0))
        // Member names in UTF-8 byte order, as `JSONValue` writes an object; values written by its serializer.
        out.append(UInt8(ascii: "{"))
        if let acrValues = stepUp?.acrValues, !acrValues.isEmpty {
            Self.append(member: "\"acr_values\":", .string(acrValues.joined(separator: " ")), to: &out)
            out.append(UInt8(ascii: ","))
        }
        Self.append(member: "\"browser_binding\":", .string(browserBindingDigest), to: &out)
        Self.append(
            member: ",\"created_at\":", .integer(Int64((createdAt.timeIntervalSince1970 * 1000).rounded())), to: &out)
        if let dpopKey { Self.append(member: ",\"dpop_jwk\":", dpopKey.exportPrivate(), to: &out) }
        Self.append(member: ",\"intent\":", .string(intent.rawValue), to: &out)
        if let maxAge = stepUp?.maxAge { Self.append(member: ",\"max_age\":", .integer(maxAge), to: &out) }
        if let nonce { Self.append(member: ",\"nonce\":", .string(nonce), to: &out) }
        if let pkceVerifier { Self.append(member: ",\"pkce_verifier\":", .string(pkceVerifier), to: &out) }
        Self.append(member: ",\"provider\":", .string(provider), to: &out)
        if let returnTo { Self.append(member: ",\"return_to\":", .string(returnTo), to: &out) }
        Self.append(member: ",\"state\":", .string(state), to: &out)
        Self.append(member: ",\"v\":", .integer(1), to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Appends `prefix` (the member's name with its punctuation) and `value` serialized.
    private static func append(member prefix: StaticString, _ value: JSONValue, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        value.serialize(into: &out)
    }

    /// Reads a record written by ``serialized()``.
    ///
    /// - Throws: `FlowStoreError.Code.invalidRecord` when the bytes are not such a record.
    package init(serialized bytes: some Collection<UInt8>) throws(FlowStoreError) {
        // Indexed in one validating pass and read member by member (`JWTClaims` is any JSON object read so):
        // no dictionary of values is built, since every callback and every start with an earlier flow reads one.
        let json: JWTClaims
        do {
            json = try JWTClaims(payload: bytes)
        } catch {
            throw FlowStoreError(.invalidRecord, "expected a JSON flow record, found bytes that are not a JSON object")
        }
        guard json["v"]?.int64Value == 1,
            let provider = json["provider"]?.stringValue,
            let state = json["state"]?.stringValue,
            let binding = json["browser_binding"]?.stringValue,
            let intent = json["intent"]?.stringValue.flatMap(SignInIntent.init(rawValue:)),
            let created = json["created_at"]?.int64Value
        else {
            throw FlowStoreError(.invalidRecord, "expected a version 1 flow record with every required member")
        }
        var dpopKey: JWK?
        if let jwk = json["dpop_jwk"] {
            do throws(JOSEError) {
                dpopKey = try JWK(json: jwk)
            } catch {
                throw FlowStoreError(.invalidRecord, "expected dpop_jwk to be a private JWK, found \(error.code)")
            }
        }
        self.init(
            provider: provider, state: state, nonce: json["nonce"]?.stringValue,
            pkceVerifier: json["pkce_verifier"]?.stringValue, returnTo: json["return_to"]?.stringValue,
            browserBindingDigest: binding, intent: intent,
            createdAt: Date(timeIntervalSince1970: Double(created) / 1000),
            stepUp: try Self.stepUp(maxAge: json["max_age"], acrValues: json["acr_values"]))
        self.dpopKey = dpopKey
    }
}

extension FlowRecord {
    /// The step-up members of a sealed record (written by ``FlowRecord/serialized()``), validated again.
    fileprivate static func stepUp(maxAge: JSONValue?, acrValues: JSONValue?) throws(FlowStoreError) -> StepUp? {
        let invalid = FlowStoreError(.invalidRecord, "expected a flow record's max_age and acr_values to be valid")
        if maxAge != nil && maxAge?.int64Value == nil { throw invalid }
        if acrValues != nil && acrValues?.stringValue == nil { throw invalid }
        do throws(SignInError) {
            return try StepUp.parse(maxAge: maxAge?.int64Value.map(String.init), acrValues: acrValues?.stringValue)
        } catch {
            throw invalid
        }
    }
}
