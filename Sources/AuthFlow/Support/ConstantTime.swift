/// Comparisons whose running time does not depend on where inputs differ.
enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; time depends only on the lengths.
    static func equals(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        var difference: UInt8 = a.count == b.count ? 0 : 1
        var left = a.makeIterator()
        var right = b.makeIterator()
        while let x = left.next() {
            let y = right.next() ?? 0
            difference |= x ^ y
        }
        return difference == 0
    }
}
