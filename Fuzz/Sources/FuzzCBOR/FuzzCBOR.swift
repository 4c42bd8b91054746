import FuzzSupport

@testable import AuthFlowJOSE

/// The strict CBOR decoder (WebAuthn attestation objects, COSE keys, extension outputs), COSE key conversion and
/// the strict DER reading of ES256 signatures: no crash or hang; whatever decodes encodes canonically to bytes
/// that decode to the same value; a COSE key that loads converts back to a COSE key that loads to the same key;
/// a signature accepted as strict DER is exactly the DER written again from its `r‖s`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCBOR(_ data: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = bytes(data, count)
    let decoder = CBORDecoder()
    if let item = try? decoder.decodeItem(in: input, at: 0) {
        if item.end > input.count { fatalError("a data item that ends past the input") }
        checkRoundTrip(item.value)
        checkKey(item.value)
    }
    if let value = try? decoder.decode(input) {
        checkRoundTrip(value)
    }
    let raw = input.withUnsafeBufferPointer { ECDSASignatureEncoding.raw(fromDER: $0, half: 32) }
    if let raw {
        let again = raw.withUnsafeBufferPointer { ECDSASignatureEncoding.der(fromRaw: $0, half: 32) }
        if again != input { fatalError("a signature read as strict DER is not its own DER written again") }
    }
    return 0
}

func checkRoundTrip(_ value: CBORValue) {
    let encoded = value.encoded()
    guard let decoded = try? CBORDecoder(maximumBytes: Int.max).decode(encoded) else {
        fatalError("a decoded value's canonical encoding does not decode")
    }
    if decoded.encoded() != encoded { fatalError("a canonical encoding that does not decode to itself") }
}

func checkKey(_ value: CBORValue) {
    guard let key = try? COSEKey(cbor: value) else { return }
    guard let cbor = try? COSEKey.cbor(for: key.jwk, algorithm: key.algorithm),
        let again = try? COSEKey(bytes: cbor.encoded())
    else {
        fatalError("a COSE key that loads does not convert back to one that loads")
    }
    if again.jwk != key.jwk || again.algorithm != key.algorithm { fatalError("a COSE key changed on conversion") }
}
