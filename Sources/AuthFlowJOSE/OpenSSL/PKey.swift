internal import COpenSSL
import Synchronization

/// An `EVP_PKEY_CTX` owned by a ``PKey`` pool; only one thread uses it at a time.
struct PooledContext: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// An OpenSSL key (`EVP_PKEY`), built once when its JWK is created and freed in `deinit`.
///
/// Signing and verification contexts are initialised once per algorithm and kept in a small
/// pool guarded by a mutex, so the hot path does not pay OpenSSL 3's per-operation set-up.
final class PKey: @unchecked Sendable {
    let pointer: OpaquePointer
    /// One list of idle contexts per (algorithm, signing) pair, at ``poolIndex(_:signing:)``.
    private let pool = Mutex<[[PooledContext]]>(Array(repeating: [], count: 2 * PKey.algorithmSlots))
    private static let maximumPooledContexts = 16

    /// The largest signature the key makes (`EVP_PKEY_get_size`), so one signing call suffices.
    let maximumSignatureLength: Int

    init(owning pointer: OpaquePointer) {
        self.pointer = pointer
        self.maximumSignatureLength = Int(EVP_PKEY_get_size(pointer))
    }

    deinit {
        pool.withLock { pool in
            for contexts in pool {
                for context in contexts { EVP_PKEY_CTX_free(context.pointer) }
            }
            pool.removeAll()
        }
        EVP_PKEY_free(pointer)
    }

    // MARK: building

    /// Builds a key with `EVP_PKEY_fromdata`; parameter names come from the shim's static strings
    /// and every value lives in memory the builder owns until the key exists.
    static func fromData(type: String, keyPair: Bool, _ fill: (ParameterBuilder) -> Bool) -> PKey? {
        guard let builder = ParameterBuilder() else { return nil }
        guard fill(builder) else {
            ERR_clear_error()
            return nil
        }
        return builder.build(type: type, selection: keyPair ? af_selection_keypair() : af_selection_public_key())
    }

    static func rsa(n: [UInt8], e: [UInt8], privateParts: [[UInt8]]?) -> PKey? {
        fromData(type: "RSA", keyPair: privateParts != nil) { builder in
            guard builder.pushBigNumber(af_param_rsa_n(), n), builder.pushBigNumber(af_param_rsa_e(), e) else {
                return false
            }
            if let parts = privateParts {
                let names = [
                    af_param_rsa_d(), af_param_rsa_p(), af_param_rsa_q(), af_param_rsa_dp(), af_param_rsa_dq(),
                    af_param_rsa_qi(),
                ]
                for (name, value) in zip(names, parts) where !builder.pushBigNumber(name, value, secret: true) {
                    return false
                }
            }
            return true
        }
    }

    static func ec(curve: ECCurve, x: [UInt8], y: [UInt8], d: [UInt8]?) -> PKey? {
        let curveName: UnsafePointer<CChar>? =
            switch curve {
            case .p256: af_curve_p256()
            case .p384: af_curve_p384()
            case .p521: af_curve_p521()
            }
        return fromData(type: "EC", keyPair: d != nil) { builder in
            guard let curveName, builder.pushUTF8(af_param_group_name(), curveName) else { return false }
            guard builder.pushOctets(af_param_pub_key(), [0x04] + x + y) else { return false }
            if let d { return builder.pushBigNumber(af_param_priv_key(), d, secret: true) }
            return true
        }
    }

    static func ed25519(x: [UInt8], d: [UInt8]?) -> PKey? {
        let key: OpaquePointer?
        if let d {
            key = d.withUnsafeBufferPointer {
                EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
            }
        } else {
            key = x.withUnsafeBufferPointer {
                EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, $0.baseAddress, $0.count)
            }
        }
        guard let key else {
            ERR_clear_error()
            return nil
        }
        return PKey(owning: key)
    }

    static func generate(type: String, configure: (OpaquePointer) -> Int32) -> PKey? {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            ERR_clear_error()
            return nil
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) == 1, EVP_PKEY_generate(context, &key) == 1,
            let key
        else {
            ERR_clear_error()
            return nil
        }
        return PKey(owning: key)
    }

    /// A fresh EC key pair, from ``ECKeyGenerator``'s pooled contexts.
    static func generateEC(_ curve: ECCurve) -> PKey? {
        ECKeyGenerator.generate(curve)
    }

    static func generateRSA(bits: Int) -> PKey? {
        generate(type: "RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) }
    }

    static func generateEd25519() -> PKey? {
        generate(type: "ED25519") { _ in 1 }
    }

    // MARK: checks

    /// `EVP_PKEY_public_check`: for EC keys, that the point is on the curve and not infinity.
    func publicCheck() -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            ERR_clear_error()
            return false
        }
        defer { EVP_PKEY_CTX_free(context) }
        let ok = EVP_PKEY_public_check(context) == 1
        if !ok { ERR_clear_error() }
        return ok
    }

    /// `EVP_PKEY_pairwise_check`: that the private and public halves belong together.
    func pairwiseCheck() -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            ERR_clear_error()
            return false
        }
        defer { EVP_PKEY_CTX_free(context) }
        let ok = EVP_PKEY_pairwise_check(context) == 1
        if !ok { ERR_clear_error() }
        return ok
    }

    // MARK: export

    enum Kind { case rsa, ec, ed25519, other }

    var kind: Kind {
        if EVP_PKEY_is_a(pointer, "RSA") == 1 { return .rsa }
        if EVP_PKEY_is_a(pointer, "EC") == 1 { return .ec }
        if EVP_PKEY_is_a(pointer, "ED25519") == 1 { return .ed25519 }
        return .other
    }

    var curve: ECCurve? {
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &buffer, buffer.count, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        let name = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch name {
        case "prime256v1", "P-256", "secp256r1": return .p256
        case "secp384r1", "P-384": return .p384
        case "secp521r1", "P-521": return .p521
        default: return nil
        }
    }

    /// A big-number parameter as unsigned big-endian bytes, left-padded to `padTo` when given.
    func bigNumber(_ name: UnsafePointer<CChar>?, padTo: Int? = nil) -> [UInt8]? {
        var number: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else {
            ERR_clear_error()
            return nil
        }
        defer { BN_clear_free(number) }
        let length = Int((BN_num_bits(number) + 7) / 8)
        let size = max(padTo ?? length, length)
        var out = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(number, &out, Int32(size)) == Int32(size) else {
            ERR_clear_error()
            return nil
        }
        return out
    }

    var rawPublicKey: [UInt8]? {
        var length = 0
        guard EVP_PKEY_get_raw_public_key(pointer, nil, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_raw_public_key(pointer, &out, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Array(out.prefix(length))
    }

    var rawPrivateKey: [UInt8]? {
        var length = 0
        guard EVP_PKEY_get_raw_private_key(pointer, nil, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_raw_private_key(pointer, &out, &length) == 1 else {
            ERR_clear_error()
            return nil
        }
        return Array(out.prefix(length))
    }

    /// Components of an RSA key: n, e and, for private keys, d, p, q, dp, dq, qi.
    func rsaComponents() -> (n: [UInt8], e: [UInt8], privateParts: [[UInt8]]?)? {
        guard let n = bigNumber(af_param_rsa_n()), let e = bigNumber(af_param_rsa_e()) else { return nil }
        let names = [
            af_param_rsa_d(), af_param_rsa_p(), af_param_rsa_q(), af_param_rsa_dp(), af_param_rsa_dq(),
            af_param_rsa_qi(),
        ]
        var parts: [[UInt8]] = []
        for name in names {
            guard let part = bigNumber(name) else { return (n, e, nil) }
            parts.append(part)
        }
        return (n, e, parts)
    }

    func ecComponents(curve: ECCurve) -> (x: [UInt8], y: [UInt8], d: [UInt8]?)? {
        let size = curve.coordinateLength
        guard let x = bigNumber(af_param_ec_pub_x(), padTo: size), let y = bigNumber(af_param_ec_pub_y(), padTo: size),
            x.count == size, y.count == size
        else { return nil }
        let d = bigNumber(af_param_priv_key(), padTo: size)
        return (x, y, d)
    }

    /// Reads a private key from PEM (PKCS#8, or a traditional RSA/EC key); encrypted keys fail.
    static func fromPEM(_ pem: [UInt8]) -> PKey? {
        let bio = pem.withUnsafeBufferPointer { BIO_new_mem_buf($0.baseAddress, Int32($0.count)) }
        guard let bio else {
            ERR_clear_error()
            return nil
        }
        defer { BIO_free(bio) }
        guard let key = af_pem_read_private_key(bio) else {
            ERR_clear_error()
            return nil
        }
        return PKey(owning: key)
    }

    /// The private key as unencrypted PKCS#8 PEM.
    func pkcs8PEM() -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else {
            ERR_clear_error()
            return nil
        }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 else {
            ERR_clear_error()
            return nil
        }
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = af_bio_get_mem_data(bio, &data)
        guard length > 0, let data else { return nil }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    // MARK: sign and verify

    /// How many algorithms ``poolIndex(_:signing:)`` numbers.
    private static let algorithmSlots = JWSAlgorithm.allCases.count

    /// The pool list for `algorithm` and direction, without hashing or allocating.
    private func poolIndex(_ algorithm: JWSAlgorithm, signing: Bool) -> Int {
        algorithm.ordinal * 2 + (signing ? 1 : 0)
    }

    private func acquireContext(_ algorithm: JWSAlgorithm, signing: Bool) -> PooledContext? {
        let index = poolIndex(algorithm, signing: signing)
        if let context = pool.withLock({ $0[index].popLast() }) { return context }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            ERR_clear_error()
            return nil
        }
        let md = algorithm.hashFunction.md
        var ok = (signing ? EVP_PKEY_sign_init(context) : EVP_PKEY_verify_init(context)) == 1
        switch algorithm {
        case .rs256, .rs384, .rs512:
            ok = ok && EVP_PKEY_CTX_set_rsa_padding(context, af_rsa_pkcs1_padding()) == 1
            ok = ok && EVP_PKEY_CTX_set_signature_md(context, md) == 1
        case .ps256, .ps384, .ps512:
            ok = ok && EVP_PKEY_CTX_set_rsa_padding(context, af_rsa_pss_padding()) == 1
            ok = ok && EVP_PKEY_CTX_set_signature_md(context, md) == 1
            ok = ok && EVP_PKEY_CTX_set_rsa_mgf1_md(context, md) == 1
            ok = ok && EVP_PKEY_CTX_set_rsa_pss_saltlen(context, Int32(algorithm.hashLength)) == 1
        case .es256, .es384, .es512:
            ok = ok && EVP_PKEY_CTX_set_signature_md(context, md) == 1
        default:
            ok = false
        }
        guard ok else {
            ERR_clear_error()
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return PooledContext(pointer: context)
    }

    private func releaseContext(_ context: PooledContext, _ algorithm: JWSAlgorithm, signing: Bool) {
        let index = poolIndex(algorithm, signing: signing)
        let kept = pool.withLock { pool -> Bool in
            // Appended in place: copying the array out and back would allocate on every release.
            guard pool[index].count < Self.maximumPooledContexts else { return false }
            pool[index].append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context.pointer) }
    }

    /// Verifies a signature in OpenSSL's encoding (DER for ECDSA) over `message`.
    func verify(signature: UnsafeBufferPointer<UInt8>, message: UnsafeBufferPointer<UInt8>, algorithm: JWSAlgorithm)
        -> Bool
    {
        if algorithm == .edDSA {
            guard let context = EVP_MD_CTX_new() else {
                ERR_clear_error()
                return false
            }
            defer { EVP_MD_CTX_free(context) }
            guard EVP_DigestVerifyInit(context, nil, nil, nil, pointer) == 1,
                EVP_DigestVerify(context, signature.baseAddress, signature.count, message.baseAddress, message.count)
                    == 1
            else {
                ERR_clear_error()
                return false
            }
            return true
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digest in
            let length = OpenSSLDigest.hash(algorithm.hashFunction, message, into: digest.baseAddress!)
            guard length > 0, let context = acquireContext(algorithm, signing: false) else { return false }
            let result = EVP_PKEY_verify(
                context.pointer, signature.baseAddress, signature.count, digest.baseAddress, length)
            releaseContext(context, algorithm, signing: false)
            if result != 1 {
                ERR_clear_error()
                return false
            }
            return true
        }
    }

    /// Signs `message`; ECDSA signatures come back in DER.
    func sign(message: UnsafeBufferPointer<UInt8>, algorithm: JWSAlgorithm) -> [UInt8]? {
        if algorithm == .edDSA {
            guard let context = EVP_MD_CTX_new() else {
                ERR_clear_error()
                return nil
            }
            defer { EVP_MD_CTX_free(context) }
            var length = 64
            var out = [UInt8](repeating: 0, count: 64)
            guard EVP_DigestSignInit(context, nil, nil, nil, pointer) == 1,
                EVP_DigestSign(context, &out, &length, message.baseAddress, message.count) == 1
            else {
                ERR_clear_error()
                return nil
            }
            return Array(out.prefix(length))
        }
        return withSignature(message: message, algorithm: algorithm) { Array($0) }
    }

    /// Signs `message` (RSA or ECDSA) into a buffer on the stack, with one signing call, and passes
    /// the signature (DER for ECDSA) to `body`.
    func withSignature<Result>(
        message: UnsafeBufferPointer<UInt8>, algorithm: JWSAlgorithm, _ body: (UnsafeBufferPointer<UInt8>) -> Result?
    ) -> Result? {
        let capacity = maximumSignatureLength
        guard algorithm != .edDSA, capacity > 0 else { return nil }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64 + capacity) { buffer -> Result? in
            let digest = buffer.baseAddress!
            let digestLength = OpenSSLDigest.hash(algorithm.hashFunction, message, into: digest)
            guard digestLength > 0, let context = acquireContext(algorithm, signing: true) else { return nil }
            defer { releaseContext(context, algorithm, signing: true) }
            let signature = digest + 64
            var length = capacity
            guard EVP_PKEY_sign(context.pointer, signature, &length, digest, digestLength) == 1, length <= capacity
            else {
                ERR_clear_error()
                return nil
            }
            return body(UnsafeBufferPointer(start: signature, count: length))
        }
    }
}

/// Wraps `OSSL_PARAM_BLD`, owning every value pushed until the key is built.
final class ParameterBuilder {
    private let builder: OpaquePointer
    private var numbers: [(OpaquePointer, Bool)] = []
    private var buffers: [UnsafeMutableBufferPointer<UInt8>] = []

    init?() {
        guard let builder = OSSL_PARAM_BLD_new() else {
            ERR_clear_error()
            return nil
        }
        self.builder = builder
    }

    deinit {
        for (number, secret) in numbers {
            if secret { BN_clear_free(number) } else { BN_free(number) }
        }
        for buffer in buffers {
            buffer.update(repeating: 0)
            buffer.deallocate()
        }
        OSSL_PARAM_BLD_free(builder)
    }

    func pushBigNumber(_ name: UnsafePointer<CChar>?, _ bytes: [UInt8], secret: Bool = false) -> Bool {
        guard let number = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) }) else {
            return false
        }
        numbers.append((number, secret))
        return OSSL_PARAM_BLD_push_BN(builder, name, number) == 1
    }

    func pushOctets(_ name: UnsafePointer<CChar>?, _ bytes: [UInt8]) -> Bool {
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        _ = buffer.initialize(from: bytes)
        buffers.append(buffer)
        return OSSL_PARAM_BLD_push_octet_string(builder, name, buffer.baseAddress, bytes.count) == 1
    }

    func pushUTF8(_ name: UnsafePointer<CChar>?, _ value: UnsafePointer<CChar>) -> Bool {
        OSSL_PARAM_BLD_push_utf8_string(builder, name, value, 0) == 1
    }

    func build(type: String, selection: Int32) -> PKey? {
        guard let parameters = OSSL_PARAM_BLD_to_param(builder) else {
            ERR_clear_error()
            return nil
        }
        defer { OSSL_PARAM_free(parameters) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
            ERR_clear_error()
            return nil
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_fromdata_init(context) == 1, EVP_PKEY_fromdata(context, &key, selection, parameters) == 1,
            let key
        else {
            ERR_clear_error()
            return nil
        }
        return PKey(owning: key)
    }
}
