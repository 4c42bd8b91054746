public import AuthFlowJOSE
import Foundation

extension FlowRecord {
    /// The record as a JSON object (for stores that keep bytes, e.g. Redis or a SQL column).
    ///
    /// `created_at` is in integer milliseconds since 1970.
    public func jsonValue() -> JSONValue {
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
        return .object(object)
    }

    /// The record as compact UTF-8 JSON: the bytes of ``jsonValue()`` serialized (members in name order), written
    /// straight into one buffer, since every sign-in start seals a record.
    public func serialized() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(
            160 + provider.utf8.count + state.utf8.count + browserBindingDigest.utf8.count
                + (nonce?.utf8.count ?? 0) + (pkceVerifier?.utf8.count ?? 0) + (returnTo?.utf8.count ?? 0))
        // Member names in UTF-8 byte order, as `JSONValue` writes an object.
        Self.append(member: "{\"browser_binding\":", string: browserBindingDigest, to: &out)
        Self.append(literal: ",\"created_at\":", to: &out)
        out.append(contentsOf: String(Int64((createdAt.timeIntervalSince1970 * 1000).rounded())).utf8)
        Self.append(member: ",\"intent\":", string: intent.rawValue, to: &out)
        if let nonce { Self.append(member: ",\"nonce\":", string: nonce, to: &out) }
        if let pkceVerifier { Self.append(member: ",\"pkce_verifier\":", string: pkceVerifier, to: &out) }
        Self.append(member: ",\"provider\":", string: provider, to: &out)
        if let returnTo { Self.append(member: ",\"return_to\":", string: returnTo, to: &out) }
        Self.append(member: ",\"state\":", string: state, to: &out)
        Self.append(literal: ",\"v\":1}", to: &out)
        return out
    }

    /// Appends `prefix` (the member's name with its punctuation) and `string` as a JSON string: copied as is
    /// when it needs no escape (the usual case: base64url values, provider names, paths), else as `JSONValue`
    /// escapes it.
    private static func append(member prefix: StaticString, string: String, to out: inout [UInt8]) {
        append(literal: prefix, to: &out)
        var string = string
        let plain = string.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
            return true
        }
        if !plain { out.append(contentsOf: JSONValue.string(string).serializedBytes()) }
    }

    private static func append(literal: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// Reads a record written by ``serialized()``.
    ///
    /// - Throws: ``FlowStoreError/Code-swift.struct/invalidRecord`` when the bytes are not such a record.
    public init(serialized bytes: some Collection<UInt8>) throws(FlowStoreError) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(bytes)
        } catch {
            throw FlowStoreError(.invalidRecord, "expected a JSON flow record, found bytes that are not JSON")
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
        self.init(
            provider: provider, state: state, nonce: json["nonce"]?.stringValue,
            pkceVerifier: json["pkce_verifier"]?.stringValue, returnTo: json["return_to"]?.stringValue,
            browserBindingDigest: binding, intent: intent,
            createdAt: Date(timeIntervalSince1970: Double(created) / 1000))
    }
}
