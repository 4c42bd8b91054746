import AuthFlowJOSE

extension SoftwareAuthenticator {
    func chooseAlgorithm(_ options: JSONValue, knobs: Knobs) throws(Refusal) -> COSEAlgorithm {
        if let forced = knobs.forceAlgorithm { return forced }
        let offered = (options["pubKeyCredParams"]?.arrayValue ?? []).compactMap { $0["alg"]?.int64Value }
        guard
            let chosen = offered.lazy.compactMap({ COSEAlgorithm(rawValue: Int($0)) }).first(where: algorithms.contains)
        else {
            throw Refusal(description: "NotSupportedError: none of the offered algorithms \(offered) is supported")
        }
        return chosen
    }

    static func generateKey(_ algorithm: COSEAlgorithm) throws(Refusal) -> JWK {
        do {
            switch algorithm {
            case .es256: return try JWK.generateP256()
            case .edDSA: return try JWK.generateEd25519()
            case .rs256: return try JWK.generateRSA(bits: 2048)
            }
        } catch {
            throw Refusal(description: "key generation failed: \(error)")
        }
    }

    static func binary(_ value: JSONValue?, _ name: String, replacedBy replacement: [UInt8]? = nil) throws(Refusal)
        -> [UInt8]
    {
        if let replacement { return replacement }
        guard let text = value?.stringValue, let bytes = try? Base64URL.decode(text) else {
            throw Refusal(description: "TypeError: options.\(name) is not base64url")
        }
        return bytes
    }

    /// The host of `https://host[:port][/…]`.
    static func host(of origin: String) -> String {
        let parts = origin.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        let authority = parts.count >= 3 && parts[0].hasSuffix(":") && parts[1].isEmpty ? parts[2] : Substring(origin)
        return String(authority.prefix { $0 != ":" })
    }

    /// `rpIdHash ‖ flags ‖ signCount`, with flag AT when attested credential data follows.
    static func authenticatorData(rpID: String, knobs: Knobs, signCount: UInt32, attested: Bool = false) -> [UInt8] {
        var flags: UInt8 = attested ? 0x40 : 0
        if knobs.userPresent { flags |= 0x01 }
        if knobs.userVerified { flags |= 0x04 }
        if knobs.backupEligible { flags |= 0x08 }
        if knobs.backedUp { flags |= 0x10 }
        return Digest.sha256(Array(rpID.utf8)) + [flags]
            + [
                UInt8(signCount >> 24), UInt8(signCount >> 16 & 0xFF), UInt8(signCount >> 8 & 0xFF),
                UInt8(signCount & 0xFF),
            ]
    }

    /// The client data as browsers write it: `type`, `challenge`, `origin`, `crossOrigin`, in that order.
    static func clientDataJSON(type: String, challenge: [UInt8], origin: String, knobs: Knobs) -> [UInt8] {
        var text = "{\"type\":" + JSONValue.string(knobs.type ?? type).serialized()
        text += ",\"challenge\":" + JSONValue.string(Base64URL.encode(challenge)).serialized()
        text += ",\"origin\":" + JSONValue.string(origin).serialized()
        if let crossOrigin = knobs.crossOrigin { text += ",\"crossOrigin\":\(crossOrigin)" }
        text += "}"
        let bytes = Array(text.utf8)
        return knobs.clientDataJSON?(bytes) ?? bytes
    }

    static func attestation(_ attestation: Attestation, key: JWK, algorithm: COSEAlgorithm, signed: [UInt8])
        throws(Refusal) -> (String, CBORValue)
    {
        switch attestation {
        case .none:
            return ("none", .map([]))
        case .custom(let format, let statement):
            return (format, statement)
        case .packedSelf, .packedSelfWrongAlgorithm, .packedSelfBadSignature:
            var signature: [UInt8]
            do {
                signature = try key.webAuthnSignature(over: signed, algorithm: algorithm)
            } catch {
                throw Refusal(description: "signing failed: \(error)")
            }
            if case .packedSelfBadSignature = attestation { signature[signature.count / 2] ^= 0x01 }
            let named =
                if case .packedSelfWrongAlgorithm = attestation { algorithm == .es256 ? -8 : -7 } else {
                    algorithm.rawValue
                }
            return (
                "packed",
                .map([CBORMapEntry(.text("alg"), CBORValue(named)), CBORMapEntry(.text("sig"), .bytes(signature))])
            )
        }
    }
}
