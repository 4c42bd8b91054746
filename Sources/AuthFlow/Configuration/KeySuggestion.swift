/// Finds the known key nearest to a misspelt one (Levenshtein distance).
enum KeySuggestion {
    /// The nearest of `known` to `key`, when it is close enough to be a plausible typo: at most 2 edits,
    /// or a third of the key's length for long keys.
    static func nearest(to key: String, in known: [String]) -> String? {
        let threshold = max(2, key.count / 3)
        var best: (key: String, distance: Int)?
        for candidate in known {
            let distance = levenshtein(Array(key.lowercased().unicodeScalars), Array(candidate.unicodeScalars))
            if distance <= threshold, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.key
    }

    static func levenshtein(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
