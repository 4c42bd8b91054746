internal import COpenSSL
import Synchronization

/// EC key generation without OpenSSL 3's per-key set-up.
///
/// A context made from the algorithm's name at every key fetches the algorithm again and builds the curve's group
/// again from its name when it generates (together about 60 % of a P-256 key's instructions). Here each curve's
/// group is built once, into a parameter template, and key-generation contexts initialised from that template are
/// kept in a small pool guarded by a mutex: a context is used by one thread at a time, taken out of the pool for
/// one key and put back afterwards.
enum ECKeyGenerator {
    /// The most idle contexts kept per curve (a burst of concurrent keys makes more, which are then freed).
    private static let maximumPooled = 8
    /// One list of idle contexts per curve, at ``slot(_:)``.
    private static let pool = Mutex<[[PooledContext]]>([[], [], []])
    /// Each curve's parameter template (its group), made once; `nil` when OpenSSL could not make it.
    private static let templates: [PKeyTemplate?] = [ECCurve.p256, .p384, .p521].map(PKeyTemplate.init(curve:))

    /// A fresh key pair on `curve`; `nil` when OpenSSL fails.
    static func generate(_ curve: ECCurve) -> PKey? {
        guard let context = take(curve) else { return nil }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_generate(context.pointer, &key) == 1, let key else {
            ERR_clear_error()
            EVP_PKEY_CTX_free(context.pointer)
            return nil
        }
        give(context, back: curve)
        return PKey(owning: key)
    }

    private static func slot(_ curve: ECCurve) -> Int {
        switch curve {
        case .p256: 0
        case .p384: 1
        case .p521: 2
        }
    }

    /// An idle context of `curve`'s pool, or a new one initialised for key generation from its template.
    private static func take(_ curve: ECCurve) -> PooledContext? {
        let index = slot(curve)
        if let context = pool.withLock({ $0[index].popLast() }) { return context }
        guard let template = templates[index],
            let context = EVP_PKEY_CTX_new_from_pkey(nil, template.pointer, nil)
        else {
            ERR_clear_error()
            return nil
        }
        guard EVP_PKEY_keygen_init(context) == 1 else {
            ERR_clear_error()
            EVP_PKEY_CTX_free(context)
            return nil
        }
        return PooledContext(pointer: context)
    }

    /// Returns `context` to `curve`'s pool, or frees it when the pool is full.
    private static func give(_ context: PooledContext, back curve: ECCurve) {
        let index = slot(curve)
        let kept = pool.withLock { pool -> Bool in
            guard pool[index].count < maximumPooled else { return false }
            pool[index].append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context.pointer) }
    }
}

/// An EC parameter template (`EVP_PKEY_paramgen`: the curve's group, no key), kept for the process's lifetime and
/// only read: contexts made from it share it.
private struct PKeyTemplate: @unchecked Sendable {
    let pointer: OpaquePointer

    init?(curve: ECCurve) {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            ERR_clear_error()
            return nil
        }
        defer { EVP_PKEY_CTX_free(context) }
        var parameters: OpaquePointer? = nil
        guard EVP_PKEY_paramgen_init(context) == 1, EVP_PKEY_CTX_set_group_name(context, curve.rawValue) == 1,
            EVP_PKEY_paramgen(context, &parameters) == 1, let parameters
        else {
            ERR_clear_error()
            return nil
        }
        pointer = parameters
    }
}

extension PKey {
    /// The members of an EC key pair, read in one `EVP_PKEY_get_params`: the public point encoded once (one field
    /// inversion, where `x` and `y` read apart take one each) and `d` into a buffer of its own size
    /// (`EVP_PKEY_get_bn_param` writes every number into a 2,048-byte buffer and reads it back); `nil` when the key
    /// is not a pair on `curve`.
    func ecKeyPair(curve: ECCurve) -> (x: [UInt8], y: [UInt8], d: [UInt8])? {
        let size = curve.coordinateLength
        var point = [UInt8](repeating: 0, count: 1 + 2 * size)
        var secret = [UInt8](repeating: 0, count: size)
        let read = point.withUnsafeMutableBufferPointer { point in
            secret.withUnsafeMutableBufferPointer { secret -> Bool in
                var parameters: [OSSL_PARAM] = [
                    OSSL_PARAM_construct_octet_string(af_param_pub_key(), point.baseAddress, point.count),
                    OSSL_PARAM_construct_BN(af_param_priv_key(), secret.baseAddress, secret.count),
                    OSSL_PARAM_construct_end(),
                ]
                guard EVP_PKEY_get_params(pointer, &parameters) == 1 else { return false }
                return parameters[0].return_size == point.count && parameters[1].return_size <= secret.count
            }
        }
        guard read, point[0] == 0x04 else {
            ERR_clear_error()
            return nil
        }
        // OSSL_PARAM big numbers are in the machine's byte order; JWK members are big-endian.
        #if _endian(little)
            secret.reverse()
        #endif
        return (Array(point[1...size]), Array(point[(size + 1)...]), secret)
    }
}
