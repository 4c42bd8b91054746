internal import COpenSSL
import Synchronization

/// AES-256-GCM and the HKDF-SHA256 that derives its key, through OpenSSL 3's EVP interfaces.
///
/// Every function returns `nil` when OpenSSL fails (for `open`: when the tag does not verify) and clears
/// OpenSSL's error queue; ``TokenCipher`` turns that into a typed error.
enum AESGCM {
    static let keyLength = 32
    static let nonceLength = 12
    static let tagLength = 16

    /// AES-256-GCM fetched once: `EVP_aes_256_gcm()` makes OpenSSL 3 look the implementation up again at every
    /// `EVP_EncryptInit_ex2`/`EVP_DecryptInit_ex2`, which cost more than sealing a flow cookie.
    private static let cipher = CipherHandle(pointer: EVP_CIPHER_fetch(nil, "AES-256-GCM", nil) ?? EVP_aes_256_gcm())

    /// The fetched cipher, for ``SealContexts``.
    static var cipherPointer: OpaquePointer? { cipher.pointer }

    /// Encrypts `plaintext` under `key` and `nonce`, authenticating `associatedData` too.
    static func seal(
        key: [UInt8], nonce: [UInt8], plaintext: [UInt8], associatedData: [UInt8]
    ) -> (ciphertext: [UInt8], tag: [UInt8])? {
        guard nonce.count == nonceLength else { return nil }
        var tag = [UInt8](repeating: 0, count: tagLength)
        var ok = false
        let ciphertext = [UInt8](unsafeUninitializedCapacity: plaintext.count) { out, initialized in
            ok = nonce.withUnsafeBufferPointer { nonce in
                plaintext.withUnsafeBufferPointer { plaintext in
                    associatedData.withUnsafeBufferPointer { associatedData in
                        tag.withUnsafeMutableBufferPointer { tag in
                            seal(
                                key: key, nonce: nonce.baseAddress!, plaintext: plaintext,
                                associatedData: associatedData, moreAssociatedData: .init(start: nil, count: 0),
                                ciphertext: out.baseAddress, tag: tag.baseAddress!)
                        }
                    }
                }
            }
            initialized = ok ? plaintext.count : 0
        }
        return ok ? (ciphertext, tag) : nil
    }

    /// Encrypts `plaintext` into `ciphertext` (as many bytes: GCM is a stream mode) and writes the 16-byte tag at
    /// `tag`, authenticating `associatedData` followed by `moreAssociatedData` as one string (GCM takes it in several
    /// updates), so a sealed value is written straight into its final buffer with no copies of its parts.
    static func seal(
        key: [UInt8], nonce: UnsafePointer<UInt8>, plaintext: UnsafeBufferPointer<UInt8>,
        associatedData: UnsafeBufferPointer<UInt8>, moreAssociatedData: UnsafeBufferPointer<UInt8>,
        ciphertext: UnsafeMutablePointer<UInt8>?, tag: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        guard key.count == keyLength, let context = EVP_CIPHER_CTX_new() else { return failed() }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex2(context, cipher.pointer, key, nil, nil) == 1 else { return failed() }
        return seal(
            context: context, nonce: nonce, plaintext: plaintext, associatedData: associatedData,
            moreAssociatedData: moreAssociatedData, ciphertext: ciphertext, tag: tag)
    }

    /// As ``seal(key:nonce:plaintext:associatedData:moreAssociatedData:ciphertext:tag:)`` on an encryption context
    /// already keyed (``SealContexts``): only the nonce is set, so the key schedule is not computed again.
    static func seal(
        context: OpaquePointer, nonce: UnsafePointer<UInt8>, plaintext: UnsafeBufferPointer<UInt8>,
        associatedData: UnsafeBufferPointer<UInt8>, moreAssociatedData: UnsafeBufferPointer<UInt8>,
        ciphertext: UnsafeMutablePointer<UInt8>?, tag: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        guard plaintext.count < Int(Int32.max) - 32, associatedData.count < Int(Int32.max),
            moreAssociatedData.count < Int(Int32.max)
        else { return false }
        // A new nonce starts a new message: OpenSSL resets the GCM state (lengths, partial blocks, tag).
        guard EVP_EncryptInit_ex2(context, nil, nil, nonce, nil) == 1 else { return failed() }
        var length: Int32 = 0
        for piece in (0..<2).lazy.map({ $0 == 0 ? associatedData : moreAssociatedData }) where !piece.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, piece.baseAddress, Int32(piece.count)) == 1 else {
                return failed()
            }
        }
        if !plaintext.isEmpty {
            guard let ciphertext,
                EVP_EncryptUpdate(context, ciphertext, &length, plaintext.baseAddress, Int32(plaintext.count)) == 1,
                Int(length) == plaintext.count
            else { return failed() }
        }
        // GCM's final step writes no bytes: it gets a scratch block, and writing any would be a failure.
        var scratch: (UInt64, UInt64) = (0, 0)
        let finished = withUnsafeMutableBytes(of: &scratch) { scratch in
            EVP_EncryptFinal_ex(context, scratch.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1
                && length == 0
        }
        guard finished, EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagLength), tag) == 1 else {
            return failed()
        }
        return true
    }

    /// Decrypts and verifies; `nil` when the tag does not match the key, nonce, ciphertext and
    /// `associatedData`.
    static func open(
        key: [UInt8], nonce: [UInt8], ciphertext: ArraySlice<UInt8>, tag: ArraySlice<UInt8>,
        associatedData: [UInt8]
    ) -> [UInt8]? {
        guard nonce.count == nonceLength, tag.count == tagLength else { return nil }
        return nonce.withUnsafeBufferPointer { nonce in
            ciphertext.withUnsafeBufferPointer { ciphertext in
                tag.withUnsafeBufferPointer { tag in
                    associatedData.withUnsafeBufferPointer { associatedData in
                        open(
                            key: key, nonce: nonce.baseAddress!, ciphertext: ciphertext, tag: tag.baseAddress!,
                            associatedData: associatedData, moreAssociatedData: .init(start: nil, count: 0))
                    }
                }
            }
        }
    }

    /// Decrypts `ciphertext` and verifies the 16-byte `tag` over it and `associatedData` followed by
    /// `moreAssociatedData` (as one string); `nil` when the tag does not match, and then nothing decrypted is
    /// returned or left in memory.
    static func open(
        key: [UInt8], nonce: UnsafePointer<UInt8>, ciphertext: UnsafeBufferPointer<UInt8>, tag: UnsafePointer<UInt8>,
        associatedData: UnsafeBufferPointer<UInt8>, moreAssociatedData: UnsafeBufferPointer<UInt8>
    ) -> [UInt8]? {
        guard key.count == keyLength, ciphertext.count < Int(Int32.max) - 32,
            associatedData.count < Int(Int32.max), moreAssociatedData.count < Int(Int32.max)
        else { return nil }
        guard let context = EVP_CIPHER_CTX_new() else { return failure() }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex2(context, cipher.pointer, key, nonce, nil) == 1 else { return failure() }
        var length: Int32 = 0
        for piece in (0..<2).lazy.map({ $0 == 0 ? associatedData : moreAssociatedData }) where !piece.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, piece.baseAddress, Int32(piece.count)) == 1 else {
                return failure()
            }
        }
        var ok = false
        let plaintext = [UInt8](unsafeUninitializedCapacity: max(ciphertext.count, 1)) { out, initialized in
            initialized = 0
            guard let base = out.baseAddress else { return }
            if !ciphertext.isEmpty {
                guard
                    EVP_DecryptUpdate(context, base, &length, ciphertext.baseAddress, Int32(ciphertext.count)) == 1,
                    Int(length) == ciphertext.count
                else {
                    OPENSSL_cleanse(base, ciphertext.count)
                    return
                }
            }
            // The tag is copied (OpenSSL takes it through a mutable pointer); the final step writes no bytes and
            // gets a scratch block. It fails when the tag does not verify: what was decrypted is wiped then.
            var expectedTag: (UInt64, UInt64) = (0, 0)
            var scratch: (UInt64, UInt64) = (0, 0)
            let verified = withUnsafeMutableBytes(of: &expectedTag) { copy in
                copy.copyMemory(from: UnsafeRawBufferPointer(start: tag, count: tagLength))
                return withUnsafeMutableBytes(of: &scratch) { scratch in
                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagLength), copy.baseAddress) == 1
                        && EVP_DecryptFinal_ex(
                            context, scratch.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
                            == 1
                        && length == 0
                }
            }
            guard verified else {
                OPENSSL_cleanse(base, ciphertext.count)
                return
            }
            initialized = ciphertext.count
            ok = true
        }
        guard ok else { return failure() }
        return plaintext
    }

    /// HKDF-SHA256 (RFC 5869) of `secret` with `salt` (none when empty) and `info`, `length` bytes long.
    ///
    /// Runs OpenSSL 3's HKDF KDF implementation, reached through `EVP_PKEY_derive` (its KDF bridge takes the
    /// same `OSSL_PARAM`s as `EVP_KDF`; `openssl/kdf.h` is not part of the COpenSSL module).
    static func deriveKey(secret: [UInt8], salt: [UInt8], info: [UInt8], length: Int) -> [UInt8]? {
        guard !secret.isEmpty, length > 0, length <= 255 * 32 else { return nil }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "HKDF", nil) else { return failure() }
        defer { EVP_PKEY_CTX_free(context) }

        // OSSL_PARAM keeps the pointers it is given: names come from static strings, values from buffers
        // that stay alive until the derivation below returns.
        var digest: [CChar] = Array("SHA256".utf8CString)
        var key = secret
        var saltBytes = salt
        var infoBytes = info
        var output = [UInt8](repeating: 0, count: length)
        let ok = digest.withUnsafeMutableBufferPointer { digestBuffer in
            key.withUnsafeMutableBytes { keyBuffer in
                saltBytes.withUnsafeMutableBytes { saltBuffer in
                    infoBytes.withUnsafeMutableBytes { infoBuffer in
                        var parameters: [OSSL_PARAM] = [
                            OSSL_PARAM_construct_utf8_string(
                                cName("digest"), digestBuffer.baseAddress, digestBuffer.count - 1),
                            OSSL_PARAM_construct_octet_string(cName("key"), keyBuffer.baseAddress, keyBuffer.count),
                            OSSL_PARAM_construct_octet_string(
                                cName("info"), infoBuffer.baseAddress, infoBuffer.count),
                        ]
                        if !saltBuffer.isEmpty {
                            parameters.append(
                                OSSL_PARAM_construct_octet_string(
                                    cName("salt"), saltBuffer.baseAddress, saltBuffer.count))
                        }
                        parameters.append(OSSL_PARAM_construct_end())
                        guard EVP_PKEY_derive_init_ex(context, &parameters) == 1 else { return false }
                        return output.withUnsafeMutableBufferPointer { out in
                            var written = out.count
                            return EVP_PKEY_derive(context, out.baseAddress, &written) == 1 && written == out.count
                        }
                    }
                }
            }
        }
        key.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
        guard ok else { return failure() }
        return output
    }

    /// A static C string for an OSSL_PARAM name (static storage: valid for the whole program).
    private static func cName(_ name: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
    }

    private static func failure<T>() -> T? {
        ERR_clear_error()
        return nil
    }

    private static func failed() -> Bool {
        ERR_clear_error()
        return false
    }
}

/// AES-256-GCM encryption contexts keyed once with one key and kept for reuse, so a seal does not pay for a context
/// and its key schedule each time (OpenSSL 3 spends more on those than on sealing a short value). A context is used
/// by one thread at a time: taken from the pool under its mutex, returned after a successful seal (one that failed is
/// freed, never reused), and at most ``maximumIdle`` are kept.
final class SealContexts: @unchecked Sendable {
    private let key: [UInt8]
    private let idle = Mutex<[CipherContext]>([])
    private static let maximumIdle = 16

    init(key: [UInt8]) { self.key = key }

    deinit {
        idle.withLock { idle in
            for context in idle { EVP_CIPHER_CTX_free(context.pointer) }
            idle.removeAll()
        }
    }

    /// Runs `body` with a context keyed for encryption; `false` when no context could be made or `body` failed.
    func withContext(_ body: (OpaquePointer) -> Bool) -> Bool {
        let context: OpaquePointer
        if let pooled = idle.withLock({ $0.popLast() }) {
            context = pooled.pointer
        } else {
            guard key.count == AESGCM.keyLength, let made = EVP_CIPHER_CTX_new() else {
                ERR_clear_error()
                return false
            }
            guard EVP_EncryptInit_ex2(made, AESGCM.cipherPointer, key, nil, nil) == 1 else {
                EVP_CIPHER_CTX_free(made)
                ERR_clear_error()
                return false
            }
            context = made
        }
        guard body(context) else {
            EVP_CIPHER_CTX_free(context)
            return false
        }
        let kept = idle.withLock { idle -> Bool in
            guard idle.count < Self.maximumIdle else { return false }
            idle.append(CipherContext(pointer: context))
            return true
        }
        if !kept { EVP_CIPHER_CTX_free(context) }
        return true
    }
}

/// An `EVP_CIPHER_CTX` of a ``SealContexts`` pool; only one thread uses it at a time.
struct CipherContext: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// A fetched `EVP_CIPHER`, immutable and shareable between threads (never freed: it lives as long as the process).
struct CipherHandle: @unchecked Sendable {
    let pointer: OpaquePointer?
}
