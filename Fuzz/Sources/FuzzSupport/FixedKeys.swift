public import AuthFlowJOSE
public import Foundation

/// The fixed key set every JWT harness verifies against, and the keys the seed corpora were signed with
/// (`Fuzz/make-seeds.py`). Test keys, generated for fuzzing only; they protect nothing.
public enum FixedKeys {
    /// An RSA-2048 key, `kid` "fuzz-rsa".
    public static let rsaPEM = """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDIeZ93D4Ofg9m3
        aKbdJK6PPjoe7f26WM5iYBN14IP48rcz/soWVn+vRq7qIrf98g6knXoefmM15dub
        /FP1vVxr/5/fZoGsiR4EQEfcsL0QhwbHmunrfzRBcL73pVaGWMpiqGEOAkmGdlYu
        BenkKU8KWuUbxkmQJgZ3qiCNPlYWwqo7eBff14K309O9xg0uD/ExQcbPI2tPmeHc
        4f+8EjLagzyNjJNV8zaI5u0ymQoYMynen/pWQQ4Yq5gZf/I2LFKz9Ea4bjXWPcU4
        vW7FhF5U4c8xREsFXYrUCOohVfig1oi7Okw3/02pWATpmqnGhNo+Lt7laD5UxERR
        gE/4YLUpAgMBAAECggEAB9muDep/RqgncWWEC0Axebh/wXr4/EAYAjAtnZMSIpXW
        k2RUeOAgQIvYXktyawZR3nkFhtt/emUq3rEt1H9QIYaGtdJ8x3XYcBAtquMHiaB6
        pScC0U76NonPYJaKjIOTlp4YrC9uE6Q0pw63jvtdy1Ot3xLlCeOt+Hz3/gVFN7+L
        3N9RNkK72h7w1ZZnKP3LIKFnudfvDWuJSW/7r0N9rdxSxRbRvAIfD0mojeC5qU0i
        uoZnjrEQzqxgXTBQrd712PvfeScY1z188cIKwq8BfmIU4tYfEeGkonUajPsthOSd
        NzEeuZsK6EC0u2J1T5W2RP4SNY7g7+aEf4AwE/EGhQKBgQD9fZCvN267TJvmsZR2
        rcaO2dxbJnPJN8iYFgrqpYs+SiwC/57u+L9OIaCXd1TEDuEYS5fBkpAtdUbWX7+p
        vmFiTAYH+6B/0LqxONrcmXHEHn1+4xUp5xAghjEDzYuq2vzQdS8/cPLS2ahHSHV/
        ehTeXXIzd5F7QBIzuMjFcvcM0wKBgQDKdbKqCc6dowBNKDNgGKXPbdqg1fmHBk1P
        iCKM1W/zh/6UwRN/1p3nzB6/pjDeH8kJuknRYJLm2Vd8X708tjUrzEbpz8yuTpCo
        zoq0BA/Kp1rX8dhaeeeMiuseNsGCROw61i+zbQ+v6sIYy3zx94uQRg1iFLefdS2W
        CAGiHdNIkwKBgQDVsZTXIRPoMZz7zZgqtDQ/GMn6zV+usagZDfwF86h+ymhv3q5N
        JsWfSBnpll+PKDv6Dz/Pn46Lw+IDtpQMtMHD6/Lpp+aV2ZCI9jUK4xBVFJ8W6Lhe
        qrudr4KCgjTLw/B8i01ZXg5WUcba0Oq8nF4bVwt+971c+ZZeo9gdG93IoQKBgEfA
        MpNkal8fd2ngx2RVF95Ndl/ttUMPDrMS8furYMOT/LtHOdvieY++nV8aTNNLvHnA
        FY0ohqdde03OuEgd4vYkrTULueREX6wTlsB5eAdADEffo+dcsJz0VqMckLPULUwk
        wD78dcTIlAUpiJxQOJvm17Nc2D6gzokPSVTk8Q4VAoGBAIMkRELQnzVPepdlm84/
        Tcq9BMI8xJuLQGSNztR6xlev4qZU2knvAlsrufFG8jJVgRlfNTQDtkxjiuB0tmvh
        qjGzQbzS6Qpz/mny4rKYeT3MIMqBZ0Qkgd/F8Ey2k2HMuFNwKmypD67Q0tU/3Ipf
        gKz29DAjG7uyPSoi06iq9vwS
        -----END PRIVATE KEY-----
        """

    /// A P-256 key, `kid` "fuzz-ec".
    public static let ecPEM = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg0PktyKtknBHd+iu1
        bEAVs5tt/CaSHV9K8/fENreb4WihRANCAARPdwZXKL33ZyWt6AjL/Ou/1YlvI3q+
        m4xTLhF0ROIgcM5AbAvRGUfA2iU8QoQ86qx1h5D/IGLBR5a+20/Kwmnn
        -----END PRIVATE KEY-----
        """

    /// The RSA private key.
    public static let rsa: JWK = load(rsaPEM, keyID: "fuzz-rsa")
    /// The P-256 private key.
    public static let ec: JWK = load(ecPEM, keyID: "fuzz-ec")
    /// Both public keys.
    public static let keySet = JWKSet(keys: [rsa.publicKey, ec.publicKey])

    /// The issuer, audience and time the seeds were minted for.
    public static let issuer = "https://issuer.fuzz.example"
    /// The audience the seeds carry.
    public static let audience = "fuzz-client"
    /// The seeds' `iat`; the harnesses verify at this instant.
    public static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func load(_ pem: String, keyID: String) -> JWK {
        do { return try JWK(pkcs8PEM: pem, keyID: keyID) } catch {
            fatalError("the fixed fuzz key does not load: \(error)")
        }
    }
}
