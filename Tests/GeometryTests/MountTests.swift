import Geometry
import GeometryTesting
import Testing

/// One signed permutation written as a remap string, with its matrix built independently.
struct SignedPermutation: Sendable, CustomTestStringConvertible {
    let text: String
    /// Rows: level axis i reads sign · device axis.
    let rows: [[Double]]

    var testDescription: String { text }

    var determinant: Double { ReferenceMatrix(rows: rows).determinant }

    static let all: [SignedPermutation] = {
        let names = ["x", "y", "z"]
        let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        var result: [SignedPermutation] = []
        for order in orders {
            for signs in 0..<8 {
                let negated = (0..<3).map { signs & (1 << $0) != 0 }
                let text = (0..<3).map { (negated[$0] ? "-" : "") + names[order[$0]] }.joined(separator: ",")
                let rows = (0..<3).map { i in
                    (0..<3).map { j in j == order[i] ? (negated[i] ? -1.0 : 1.0) : 0 }
                }
                result.append(SignedPermutation(text: text, rows: rows))
            }
        }
        return result
    }()
}

/// Parses `text` as a remap, expecting failure, and returns the error.
private func remapError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> MountParseError? {
    do {
        let remap = try AxisRemap(parsing: text)
        Issue.record("\"\(text)\" parsed as \(remap), expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// Parses `text` as a mount, expecting failure, and returns the error.
private func mountError(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> MountParseError? {
    do {
        let mount = try Mount(parsing: text)
        Issue.record("\"\(text)\" parsed as \(mount), expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

private let probe = Vector3(x: 0.1, y: -0.2, z: 0.97)

@Suite("AxisRemap")
struct AxisRemapTests {
    @Test("There are 48 signed permutations, 24 proper and 24 mirrored")
    func census() {
        let all = SignedPermutation.all
        #expect(all.count == 48)
        #expect(Set(all.map(\.text)).count == 48)
        #expect(all.filter { $0.determinant == 1 }.count == 24)
        #expect(all.filter { $0.determinant == -1 }.count == 24)
        let accepted = all.filter { (try? AxisRemap(parsing: $0.text)) != nil }
        #expect(accepted.count == 24)
        #expect(accepted.allSatisfy { $0.determinant == 1 })
    }

    @Test("Every proper signed permutation parses, maps as its matrix, and its text round-trips",
          arguments: SignedPermutation.all.filter { $0.determinant == 1 })
    func properAccepted(permutation: SignedPermutation) throws {
        let remap = try AxisRemap(parsing: permutation.text)
        #expect(remap.description == permutation.text)
        #expect(try AxisRemap(parsing: remap.description) == remap)
        expectClose(remap.apply(probe), ReferenceMatrix(rows: permutation.rows).apply(probe), tolerance: 0)
        expectClose(remap.rotation.apply(probe), remap.apply(probe), tolerance: 0)
        #expect(remap.apply(probe).magnitude == probe.magnitude)
    }

    @Test("Every mirrored signed permutation is rejected, with a proper remap suggested",
          arguments: SignedPermutation.all.filter { $0.determinant == -1 })
    func mirroredRejected(permutation: SignedPermutation) throws {
        let error = try #require(remapError(permutation.text))
        guard case .mirrored(let suggestion) = error.reason else {
            Issue.record("expected .mirrored, got \(error.reason)")
            return
        }
        #expect(throws: Never.self) { try AxisRemap(parsing: suggestion) }
        #expect(error.description.contains("mirror"))
        #expect(error.description.contains("rotated"))
        #expect(error.description.contains(suggestion))
        #expect(error.description.contains("x,-z,y"))
    }

    @Test("identity is x,y,z and changes nothing")
    func identity() throws {
        #expect(AxisRemap.identity.description == "x,y,z")
        #expect(try AxisRemap(parsing: "x,y,z") == .identity)
        #expect(AxisRemap.identity.apply(probe) == probe)
        #expect(AxisRemap.identity.rotation == .identity)
    }

    @Test("x,-z,y reads level x = device x, level y = −device z, level z = device y")
    func uprightMapping() throws {
        let remap = try AxisRemap(parsing: "x,-z,y")
        #expect(remap.apply(Vector3(x: 1, y: 2, z: 3)) == Vector3(x: 1, y: -3, z: 2))
    }

    @Test("Spaces, a leading + and capitals are accepted; the description is canonical",
          arguments: [" X , -Z , +Y ", "x,-z,y", "+x,-z,+y", "x ,\t-z, y"])
    func lenientSpelling(text: String) throws {
        let remap = try AxisRemap(parsing: text)
        #expect(remap.description == "x,-z,y")
    }

    @Test("Not three parts is rejected with the count found",
          arguments: [("x", 1), ("x,y", 2), ("x,y,z,x", 4), ("x;y;z", 1), ("x y z", 1)])
    func wrongCount(text: String, count: Int) throws {
        let error = try #require(remapError(text))
        #expect(error.reason == .wrongAxisCount(count))
        #expect(error.description.contains("three"))
    }

    @Test("A part that is not a signed axis is rejected and named",
          arguments: [("x,y,w", "w"), ("x,,z", ""), ("xy,z,y", "xy"), ("1,2,3", "1"), ("--x,y,z", "--x"),
                      ("x,y,- z", "- z"), ("x,y,z1", "z1"), ("x,y,−z", "−z")])
    func notAnAxis(text: String, part: String) throws {
        let error = try #require(remapError(text))
        #expect(error.reason == .notAnAxis(part))
        #expect(error.description.contains("\"\(part)\" is not an axis"))
    }

    @Test("A repeated device axis is rejected, signed or not",
          arguments: [("x,x,z", "x"), ("x,-x,z", "x"), ("y,z,y", "y"), ("z,-y,-z", "z")])
    func repeatedAxis(text: String, axis: String) throws {
        let error = try #require(remapError(text))
        #expect(error.reason == .repeatedAxis(axis))
        #expect(error.description.contains("device axis \(axis) is used more than once"))
    }

    @Test("Every error quotes the text and shows a valid example",
          arguments: ["", "x,y", "x,y,w", "x,x,z", "x,y,-z"])
    func messagesHelp(text: String) throws {
        let error = try #require(remapError(text))
        #expect(error.text == text)
        #expect(error.description.contains("\"\(text)\""))
        #expect(error.description.contains("x,-z,y"))
    }
}

@Suite("Mount")
struct MountTests {
    @Test("flat and upright parse by name in any case; names round-trip",
          arguments: [("flat", Mount.flat), ("FLAT", .flat), (" upright\n", .upright), ("Upright", .upright)])
    func namedMounts(text: String, mount: Mount) throws {
        #expect(try Mount(parsing: text) == mount)
        #expect(try Mount(parsing: mount.name) == mount)
    }

    @Test("A remap string is a custom mount that keeps its text, even when it matches a named one",
          arguments: ["x,-z,y", "y,-x,z", "x,y,z", "-x,-y,z"])
    func customMounts(text: String) throws {
        let mount = try Mount(parsing: text)
        #expect(try mount == .custom(AxisRemap(parsing: text)))
        #expect(mount.name == text)
        #expect(mount.description == text)
        #expect(try Mount(parsing: mount.name) == mount)
    }

    @Test("flat is the identity; upright is x,-z,y")
    func remaps() throws {
        #expect(Mount.flat.remap == .identity)
        #expect(try Mount.upright.remap == AxisRemap(parsing: "x,-z,y"))
        #expect(Mount.flat.name == "flat")
        #expect(Mount.upright.name == "upright")
        #expect(try Mount(parsing: "x,-z,y").remap == Mount.upright.remap)
    }

    @Test("levelFrame: flat passes gravity through, upright gives (gx, −gz, gy)")
    func levelFrame() {
        let g = Vector3(x: 0.1, y: 0.2, z: 0.3)
        #expect(Mount.flat.levelFrame(g) == g)
        #expect(Mount.upright.levelFrame(g) == Vector3(x: 0.1, y: -0.3, z: 0.2))
    }

    @Test("An unknown word, empty text or an invalid remap is rejected with the reason",
          arguments: [("sideways", MountParseError.Reason.unknownMount), ("", .empty), ("  ", .empty),
                      ("x,y", .wrongAxisCount(2)), ("x,x,z", .repeatedAxis("x")),
                      ("x,y,-z", .mirrored(suggestion: "x,y,z"))])
    func rejected(text: String, reason: MountParseError.Reason) throws {
        let error = try #require(mountError(text))
        #expect(error.reason == reason)
        #expect(error.description.contains("flat"))
        #expect(error.description.contains("upright"))
        #expect(error.description.contains("x,-z,y"))
    }
}
