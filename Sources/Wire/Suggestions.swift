/// Names close to a misspelt one: those within a third of its length in edits, and at most 3
/// (insertions, deletions, substitutions, a swap of neighbours), the closest first; or those it
/// begins. The command line's subcommands and a flow's words are suggested with it.
package enum Suggestions {
    package static func nearest(to word: String, among names: [String]) -> [String] {
        let lowered = word.lowercased()
        let scored = names.map { (name: $0, distance: distance(lowered, $0.lowercased())) }
        let limit = min(3, max(1, lowered.count / 3))
        let best = scored.filter { $0.distance <= limit }.map(\.distance).min()
        if let best { return scored.filter { $0.distance == best }.map(\.name) }
        return lowered.count >= 3 ? names.filter { $0.lowercased().hasPrefix(lowered) } : []
    }

    /// Optimal string alignment distance.
    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}
