/// Comparisons of secrets (MACs, nonces, binding digests) whose time depends only on the lengths.
public enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; the time taken depends only on their lengths.
    package static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        if let result = a.withContiguousStorageIfAvailable({ left in
            b.withContiguousStorageIfAvailable { right in equals(left, right) }
        }), let result {
            return result
        }
        return equals(Array(a), Array(b))
    }

    /// Whether the UTF-8 bytes of `a` and `b` are the same; the time taken depends only on their lengths.
    public static func equals(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        // Native strings are contiguous already; this only copies bridged or lazily built ones.
        a.makeContiguousUTF8()
        b.makeContiguousUTF8()
        return equals(a.utf8, b.utf8)
    }

    static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { left in b.withUnsafeBufferPointer { right in equals(left, right) } }
    }

    static func equals(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        // Every byte of `a` is looked at whatever `b` holds, so the time does not reveal where they differ.
        for index in 0..<a.count {
            difference |= a[index] ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }
}
