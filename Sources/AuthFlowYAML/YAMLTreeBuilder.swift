/// Assembles events into a tree, enforcing unique keys, the core-schema tags and ``YAMLLimits``.
///
/// Works with an explicit stack, so deep input cannot exhaust the call stack.
struct YAMLTreeBuilder {
    private struct Anchored {
        var node: YAMLNode
        var nodeCount: Int
        var height: Int
    }

    /// A collection being built. Mutated in place on the stack so appends never copy the arrays.
    private struct OpenFrame {
        var kind: YAMLEvent.Collection
        var mark: YAMLMark
        var items: [YAMLNode] = []
        var pairs: [(key: YAMLScalar, value: YAMLNode)] = []
        var pendingKey: YAMLScalar?
        var keys: [String: YAMLMark] = [:]
        var anchor: String?
        var nodeCountAtStart: Int
        var height = 1
    }

    private let fileName: String
    private let source: YAMLSourceText
    private let limits: YAMLLimits
    private var stack: [OpenFrame] = []
    private var anchors: [String: Anchored] = [:]
    private var nodeCount = 0

    init(fileName: String, source: YAMLSourceText, limits: YAMLLimits) {
        self.fileName = fileName
        self.source = source
        self.limits = limits
    }

    /// Takes the next node event; returns the root once it is complete.
    mutating func add(_ event: YAMLEvent) throws(YAMLError) -> YAMLNode? {
        switch event {
        case .scalar(let scalar, let anchor):
            try checkScalarTag(scalar)
            try count(1, at: scalar.mark)
            let node = YAMLNode.scalar(scalar)
            if let anchor { anchors[anchor] = Anchored(node: node, nodeCount: 1, height: 0) }
            return try attach(node, height: 0)
        case .alias(let anchor, let mark):
            guard let anchored = anchors[anchor] else {
                throw error(.unknownAnchor, "alias *\(anchor) refers to no anchor defined before it", at: mark)
            }
            try count(anchored.nodeCount, at: mark)
            if stack.count + anchored.height > limits.maxDepth { throw depthError(at: mark) }
            return try attach(anchored.node, height: anchored.height)
        case .collectionStart(let kind, let anchor, let tag, let mark):
            try checkCollectionTag(tag, kind: kind, at: mark)
            if stack.count + 1 > limits.maxDepth { throw depthError(at: mark) }
            try count(1, at: mark)
            stack.append(OpenFrame(kind: kind, mark: mark, anchor: anchor, nodeCountAtStart: nodeCount - 1))
            return nil
        case .collectionEnd:
            guard let open = stack.popLast() else {
                throw error(.syntax, "unbalanced end of a collection", at: nil)
            }
            let node: YAMLNode =
                open.kind == .sequence ? .sequence(open.items, open.mark) : .mapping(open.pairs, open.mark)
            if let anchor = open.anchor {
                anchors[anchor] = Anchored(
                    node: node, nodeCount: nodeCount - open.nodeCountAtStart, height: open.height)
            }
            return try attach(node, height: open.height)
        case .streamStart, .streamEnd, .documentStart, .documentEnd:
            return nil
        }
    }

    private mutating func attach(_ node: YAMLNode, height: Int) throws(YAMLError) -> YAMLNode? {
        let top = stack.count - 1
        guard top >= 0 else { return node }
        stack[top].height = max(stack[top].height, height + 1)
        if stack[top].kind == .sequence {
            stack[top].items.append(node)
        } else if let key = stack[top].pendingKey {
            stack[top].pairs.append((key: key, value: node))
            stack[top].pendingKey = nil
        } else {
            guard case .scalar(let key) = node else {
                throw error(
                    .complexKey, "expected a scalar mapping key, found \(node.foundDescription)", at: node.mark)
            }
            if let first = stack[top].keys[key.value] {
                throw error(
                    .duplicateKey,
                    "duplicate key \(YAMLError.quote(key.value)) (first defined at line \(first.line), "
                        + "column \(first.column))", at: key.mark)
            }
            stack[top].keys[key.value] = key.mark
            stack[top].pendingKey = key
        }
        return nil
    }

    private mutating func count(_ added: Int, at mark: YAMLMark) throws(YAMLError) {
        nodeCount += added
        guard nodeCount <= limits.maxNodes else {
            throw error(
                .tooManyNodes,
                "document expands to more than \(limits.maxNodes) nodes (aliases included); refusing to expand it",
                at: mark)
        }
    }

    private func depthError(at mark: YAMLMark) -> YAMLError {
        error(.tooDeep, "document nests deeper than \(limits.maxDepth) levels (aliases included)", at: mark)
    }

    private func checkScalarTag(_ scalar: YAMLScalar) throws(YAMLError) {
        guard let tag = scalar.tag, tag != "!" else { return }
        let prefix = YAMLScalar.coreTagPrefix
        guard tag.hasPrefix(prefix) else { throw unsupportedTag(tag, at: scalar.mark) }
        switch tag.dropFirst(prefix.count) {
        case "str": return
        case "null": if ["", "~", "null", "Null", "NULL"].contains(scalar.value) { return }
        case "bool": if scalar.boolValue != nil { return }
        case "int": if scalar.int64Value != nil { return }
        case "float": if scalar.doubleValue != nil { return }
        default: throw unsupportedTag(tag, at: scalar.mark)
        }
        throw error(
            .invalidValue,
            "value \(YAMLError.quote(scalar.value)) does not match its tag !!\(tag.dropFirst(prefix.count))",
            at: scalar.mark)
    }

    private func checkCollectionTag(_ tag: String?, kind: YAMLEvent.Collection, at mark: YAMLMark)
        throws(YAMLError)
    {
        guard let tag, tag != "!" else { return }
        let expected = YAMLScalar.coreTagPrefix + (kind == .sequence ? "seq" : "map")
        guard tag == expected else { throw unsupportedTag(tag, at: mark) }
    }

    private func unsupportedTag(_ tag: String, at mark: YAMLMark) -> YAMLError {
        let shown = tag.hasPrefix(YAMLScalar.coreTagPrefix) ? "!!" + tag.dropFirst(YAMLScalar.coreTagPrefix.count) : tag
        return error(
            .unsupportedTag, "unsupported tag \(shown); only the YAML 1.2 core schema tags are accepted", at: mark)
    }

    private func error(_ code: YAMLError.Code, _ message: String, at mark: YAMLMark?) -> YAMLError {
        YAMLError(code: code, message: message, fileName: fileName, mark: mark, source: source)
    }
}
