/// Bytes appended through a pointer into memory the writer owns, growing by doubling. Each append
/// checks capacity only (no uniqueness check, no generic copy), so a serializer writing many small
/// pieces (a JSON object, a compact JWS) costs one allocation and a few instructions per piece.
@usableFromInline
package struct ByteWriter: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// The number of bytes written.
    @usableFromInline package private(set) var count = 0

    package init(capacity: Int) {
        self.capacity = max(capacity, 16)
        self.base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// Room for `extra` more bytes; returns where they go. The caller writes them, then ``advance(by:)``.
    @inlinable @inline(__always)
    package mutating func reserve(_ extra: Int) -> UnsafeMutablePointer<UInt8> {
        if capacity - count < extra { grow(to: count + extra) }
        return base + count
    }

    /// Counts `written` bytes stored at the pointer ``reserve(_:)`` returned.
    @inlinable @inline(__always)
    package mutating func advance(by written: Int) { count += written }

    @usableFromInline mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    @inlinable @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count == capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }

    package mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends ASCII text given as a literal.
    package mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Calls `body` with the bytes written so far.
    package func withBytes<Result, Failure: Error>(_ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        try body(UnsafeBufferPointer(start: base, count: count))
    }

    /// The bytes written so far, as an array.
    package var array: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The bytes written so far, as a string (they are UTF-8).
    package var string: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }
}
