import Synchronization

/// Where trace and span ids come from: SplitMix64 (a 64-bit counter stepped by a fixed odd constant, each value
/// mixed) from a point drawn once from the server's random source. Ids must be unique, not secret: a trace id
/// travels to providers in `traceparent` headers anyway, and the W3C Trace Context leaves the generator free. The
/// counter repeats no value within 2^64 ids, and two processes start from independent random points; drawing the
/// ids from the secure source instead cost a lock and a copy of its buffer per id.
final class SpanIDs: Sendable {
    private let counter: Atomic<UInt64>

    /// Ids from the point the first 8 bytes of `seed` name.
    init(seed: [UInt8]) {
        counter = Atomic(seed.prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// The next value, never zero.
    func next() -> UInt64 {
        while true {
            var value = counter.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
            value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
            value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
            value ^= value >> 31
            if value != 0 { return value }
        }
    }

    /// `words` values as 8 big-endian bytes each, the first value never zero (so neither are the bytes).
    func bytes(words: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: words * 8) { buffer, initialized in
            for word in 0..<words {
                let value = next()
                for index in 0..<8 {
                    buffer[word * 8 + index] = UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * index))
                }
            }
            initialized = words * 8
        }
    }
}
