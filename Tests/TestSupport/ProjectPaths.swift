// ProjectPaths: where the project, its fixtures and ../shared are, found from this file's own
// path, so tests read them in place whatever the working directory.

import Foundation

/// The package's root folder, found from this source file, so tests can read `Fixtures/` and `../shared/`.
public enum ProjectPaths {
    public static let root: String = {
        var path = #filePath
        for _ in 0..<3 {  // Tests/TestSupport/ProjectPaths.swift
            path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        }
        return path
    }()
    /// `../shared` beside the project.
    public static var shared: String {
        String(root[..<(root.lastIndex(of: "/") ?? root.startIndex)]) + "/shared"
    }
    public static var fixtures: String { root + "/Fixtures" }
    /// The bytes of a file under `Fixtures/` (`path` relative to it, e.g. `live-events/home-all-types.sse`).
    public static func fixtureBytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: fixtures + "/" + path)))
    }
}
