extension JWK {
    /// The RFC 7638 thumbprint: base64url SHA-256 of the required members in lexicographic order.
    package func thumbprint() -> String {
        Base64URL.encode(Digest.sha256(Array(thumbprintInput().utf8)))
    }

    /// The canonical JSON RFC 7638 hashes.
    func thumbprintInput() -> String {
        switch material {
        case .rsa(let n, let e, _):
            let eText = Base64URL.encode(KeyMaterial.stripLeadingZeros(e))
            let nText = Base64URL.encode(KeyMaterial.stripLeadingZeros(n))
            return #"{"e":"\#(eText)","kty":"RSA","n":"\#(nText)"}"#
        case .ec(let curve, let x, let y, _):
            return
                #"{"crv":"\#(curve.rawValue)","kty":"EC","x":"\#(Base64URL.encode(x))","y":"\#(Base64URL.encode(y))"}"#
        case .ed25519(let x, _):
            return #"{"crv":"Ed25519","kty":"OKP","x":"\#(Base64URL.encode(x))"}"#
        case .oct(let k):
            return #"{"k":"\#(Base64URL.encode(k))","kty":"oct"}"#
        }
    }
}
