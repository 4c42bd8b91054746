/// Bounds that keep parsing a hostile document cheap.
package struct YAMLLimits: Sendable, Hashable {
    /// The largest document accepted, in UTF-8 bytes. Default 1 MiB.
    package var maxDocumentBytes: Int
    /// The most nodes the tree may hold, counting every node an alias expands to (this is what stops
    /// "billion laughs" documents). Default 10 000.
    package var maxNodes: Int
    /// The deepest nesting of sequences and mappings, aliases expanded. Default 64.
    package var maxDepth: Int

    /// Creates limits; the defaults suit configuration files.
    package init(maxDocumentBytes: Int = 1 << 20, maxNodes: Int = 10_000, maxDepth: Int = 64) {
        self.maxDocumentBytes = maxDocumentBytes
        self.maxNodes = maxNodes
        self.maxDepth = maxDepth
    }
}
