internal import Foundation

/// A file a configuration read a secret from: a `*_file` key's file, or the configuration file itself when it
/// holds `server.secret` inline (not through `${VAR}`).
package struct SecretFile: Sendable, Hashable {
    /// The key that put a secret in the file, e.g. `providers.google.client_secret_file` or `server.secret`.
    package let key: String
    /// The file's path as it was read.
    package let path: String

    /// Creates a record of `path`, holding the secret of `key`.
    package init(key: String, path: String) {
        self.key = key
        self.path = path
    }

    /// The permission bits of the file at `path` (`st_mode & 0o7777`); `nil` when it cannot be examined.
    @Sendable package static func permissions(atPath path: String) -> Int? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = attributes[.posixPermissions] as? NSNumber
        else { return nil }
        return mode.intValue & 0o7777
    }
}

extension Configuration {
    /// One warning for each of ``secretFiles`` that its group or others may read (mode & 0o077), naming the file,
    /// the key and the fix (`chmod 600`); never the file's content. Deduplicated by path, in reading order.
    ///
    /// - Parameter permissions: the permission bits of a path (`nil` when unknown: no warning).
    package func secretFilePermissionWarnings(
        permissions: (String) -> Int? = SecretFile.permissions(atPath:)
    ) -> [String] {
        var seen: Set<String> = []
        var warnings: [String] = []
        for file in secretFiles where seen.insert(file.path).inserted {
            guard let mode = permissions(file.path), mode & 0o077 != 0 else { continue }
            let octal = String(mode & 0o777, radix: 8)
            let shown = Self.shellQuoted(file.path)
            warnings.append(
                "\(file.path) (holding \(file.key)) is readable by group or others (mode \(octal)); "
                    + "restrict it with: chmod 600 \(shown)")
        }
        return warnings
    }

    /// `path` as one shell word.
    static func shellQuoted(_ path: String) -> String {
        let plain = path.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || "/._-+=:@,".utf8.contains(byte)
        }
        return plain && !path.isEmpty ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
