import Foundation

/// Output for the examples' status lines.
public enum Console {
    /// Writes `line` to standard output at once (unbuffered, so a supervising process sees it even through a pipe).
    public static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
