internal import COpenSSL

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

    /// Encrypts `plaintext` under `key` and `nonce`, authenticating `associatedData` too.
    static func seal(
        key: [UInt8], nonce: [UInt8], plaintext: [UInt8], associatedData: [UInt8]
    ) -> (ciphertext: [UInt8], tag: [UInt8])? {
        guard key.count == keyLength, nonce.count == nonceLength, plaintext.count < Int(Int32.max) - 32,
            associatedData.count < Int(Int32.max)
        else { return nil }
        guard let context = EVP_CIPHER_CTX_new() else { return failure() }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_EncryptInit_ex2(context, cipher.pointer, key, nonce, nil) == 1 else { return failure() }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_EncryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                return failure()
            }
        }
        var ciphertext = [UInt8](repeating: 0, count: plaintext.count + 16)
        var written = 0
        let ok = ciphertext.withUnsafeMutableBufferPointer { out -> Bool in
            guard let base = out.baseAddress else { return false }
            if !plaintext.isEmpty {
                guard EVP_EncryptUpdate(context, base, &length, plaintext, Int32(plaintext.count)) == 1 else {
                    return false
                }
                written = Int(length)
            }
            guard EVP_EncryptFinal_ex(context, base + written, &length) == 1 else { return false }
            written += Int(length)
            return true
        }
        guard ok else { return failure() }
        ciphertext.removeSubrange(written...)
        var tag = [UInt8](repeating: 0, count: tagLength)
        guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tagLength), &tag) == 1 else {
            return failure()
        }
        return (ciphertext, tag)
    }

    /// Decrypts and verifies; `nil` when the tag does not match the key, nonce, ciphertext and
    /// `associatedData`.
    static func open(
        key: [UInt8], nonce: [UInt8], ciphertext: ArraySlice<UInt8>, tag: ArraySlice<UInt8>,
        associatedData: [UInt8]
    ) -> [UInt8]? {
        guard key.count == keyLength, nonce.count == nonceLength, tag.count == tagLength,
            ciphertext.count < Int(Int32.max) - 32, associatedData.count < Int(Int32.max)
        else { return nil }
        guard let context = EVP_CIPHER_CTX_new() else { return failure() }
        defer { EVP_CIPHER_CTX_free(context) }
        guard EVP_DecryptInit_ex2(context, cipher.pointer, key, nonce, nil) == 1 else { return failure() }
        var length: Int32 = 0
        if !associatedData.isEmpty {
            guard EVP_DecryptUpdate(context, nil, &length, associatedData, Int32(associatedData.count)) == 1 else {
                return failure()
            }
        }
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
        var written = 0
        let input = Array(ciphertext)
        var expectedTag = Array(tag)
        let ok = plaintext.withUnsafeMutableBufferPointer { out -> Bool in
            guard let base = out.baseAddress else { return false }
            if !input.isEmpty {
                guard EVP_DecryptUpdate(context, base, &length, input, Int32(input.count)) == 1 else { return false }
                written = Int(length)
            }
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(tagLength), &expectedTag) == 1 else {
                return false
            }
            // Final fails when the tag does not verify; nothing decrypted is returned then.
            guard EVP_DecryptFinal_ex(context, base + written, &length) == 1 else { return false }
            written += Int(length)
            return true
        }
        guard ok else {
            plaintext.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) }
            return failure()
        }
        plaintext.removeSubrange(written...)
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
}

/// A fetched `EVP_CIPHER`, immutable and shareable between threads (never freed: it lives as long as the process).
struct CipherHandle: @unchecked Sendable {
    let pointer: OpaquePointer?
}
