// Where `chatstream serve` takes its JWT secret from: a file (`--jwt-secret-file`), the
// environment (`CHATSTREAM_JWT_SECRET`) or, still accepted but warned about, the command line
// (`--jwt-secret`), which any local user can read from /proc/PID/cmdline or `ps`.

import Foundation

extension ServeCommand {
    /// The environment variable that may hold the JWT secret.
    static let secretVariable = "CHATSTREAM_JWT_SECRET"

    /// The JWT secret the flags or `environment` give, or nil (development mode).
    ///
    /// `--jwt-secret-file` and `--jwt-secret` exclude each other; either one wins over
    /// `CHATSTREAM_JWT_SECRET`. A file's trailing line break is not part of the secret. The argv
    /// form prints a warning to standard error. Throws a usage error for an empty secret or an
    /// unreadable file, naming the file.
    static func jwtSecret(_ parsed: ArgumentParser, environment: [String: String]) throws -> String? {
        let argument = parsed.value("jwt-secret")
        let path = parsed.value("jwt-secret-file")
        if argument != nil, path != nil {
            throw ArgumentParser.UsageError(message: "--jwt-secret and --jwt-secret-file exclude each other")
        }
        if let argument {
            guard !argument.isEmpty else { throw ArgumentParser.UsageError(message: "--jwt-secret needs a value") }
            Output.standardError(
                "warning: --jwt-secret is readable by every local user (ps, /proc/PID/cmdline); "
                    + "use --jwt-secret-file PATH or \(secretVariable) instead\n")
            return argument
        }
        if let path {
            guard !path.isEmpty else { throw ArgumentParser.UsageError(message: "--jwt-secret-file needs a path") }
            guard let data = FileManager.default.contents(atPath: path) else {
                throw ArgumentParser.UsageError(message: "--jwt-secret-file: cannot read \"\(path)\"")
            }
            var secret = String(decoding: data, as: UTF8.self)
            while let last = secret.last, last == "\n" || last == "\r\n" || last == "\r" { secret.removeLast() }
            guard !secret.isEmpty else {
                throw ArgumentParser.UsageError(message: "--jwt-secret-file: \"\(path)\" holds no secret")
            }
            return secret
        }
        if let secret = environment[secretVariable] {
            guard !secret.isEmpty else { throw ArgumentParser.UsageError(message: "\(secretVariable) is empty") }
            return secret
        }
        return nil
    }
}
