import CYAML

/// A position in a config file, 1-based, from libyaml's marks.
struct YAMLMark: Hashable, Sendable {
    var line: Int
    var column: Int

    init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    init(_ mark: yaml_mark_t) {
        // libyaml counts from 0; editors and people count from 1.
        line = Int(mark.line) + 1
        column = Int(mark.column) + 1
    }
}

/// A scalar as written: its text, whether it was plain (unquoted, untagged, so its type comes
/// from the YAML 1.2 core schema) and where it starts.
struct YAMLScalar: Hashable, Sendable {
    var text: String
    var isPlain: Bool
    var mark: YAMLMark
}

/// One `key: value` of a mapping. Keys are always scalars; anything else is refused at parsing.
struct YAMLEntry: Sendable {
    var key: YAMLScalar
    var value: YAMLNode
}

/// The tree of one YAML document, just enough for a config file: scalars, mappings, sequences,
/// each with its position. Anchors, aliases and tags other than `!!str` are refused.
indirect enum YAMLNode: Sendable {
    case scalar(YAMLScalar)
    case mapping([YAMLEntry], YAMLMark)
    case sequence([YAMLNode], YAMLMark)

    var mark: YAMLMark {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .mapping(_, let mark), .sequence(_, let mark): mark
        }
    }

    /// What kind of node this is, for "found …" in a message.
    var kindDescription: String {
        switch self {
        case .scalar(let scalar): YAMLValue(scalar).kindDescription
        case .mapping: "a mapping"
        case .sequence: "a list"
        }
    }
}

/// Reads YAML text with libyaml's event parser into a ``YAMLNode`` tree.
enum YAMLReader {
    /// The document's root node, or nil when the text holds no document or only an empty one
    /// (an empty file, or only comments).
    ///
    /// - Throws: ``ConfigurationError`` with code `.syntax` for what libyaml rejects (its problem
    ///   and mark), and for what a config file may not use: aliases, tags, more than one document,
    ///   keys that are not scalars.
    static func read(_ text: [UInt8], source: String) throws(ConfigurationError) -> YAMLNode? {
        // An empty array may have no buffer at all, and libyaml asserts on a null input.
        guard !text.isEmpty else { return nil }
        var bytes = text
        // libyaml reads through the pointer for the whole parse; keep the buffer pinned.
        let result: Result<YAMLNode?, ConfigurationError> = bytes.withUnsafeMutableBufferPointer { buffer in
            var parser = yaml_parser_t()
            guard yaml_parser_initialize(&parser) == 1 else {
                return .failure(ConfigurationError(code: .syntax, source: source, reason:
                    "libyaml could not start (out of memory?); retry, and report it if it persists."))
            }
            defer { yaml_parser_delete(&parser) }
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count)
            var builder = TreeBuilder(source: source)
            do throws(ConfigurationError) {
                while true {
                    var event = yaml_event_t()
                    guard yaml_parser_parse(&parser, &event) == 1 else {
                        return .failure(syntaxError(parser, source: source))
                    }
                    defer { yaml_event_delete(&event) }
                    if try builder.consume(event) { break }
                }
                return .success(builder.root)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// libyaml's own words and position for a document it cannot read.
    private static func syntaxError(_ parser: yaml_parser_t, source: String) -> ConfigurationError {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown problem"
        if parser.error == YAML_READER_ERROR {
            // Encoding problems carry a byte offset, not a line.
            return ConfigurationError(code: .syntax, source: source, reason:
                "the file is not valid UTF-8 text: \(problem) at byte \(parser.problem_offset). Save it as UTF-8.")
        }
        var reason = "YAML syntax error: \(problem)"
        if let context = parser.context.map({ String(cString: $0) }) {
            let at = YAMLMark(parser.context_mark)
            reason += " (\(context) at line \(at.line), column \(at.column))"
        }
        reason += ". Check the indentation (spaces only, no tabs), the colon after each key, and the quotes."
        return ConfigurationError(code: .syntax, source: source, mark: YAMLMark(parser.problem_mark), reason: reason)
    }
}

/// Turns the event stream into a tree, one event at a time.
private struct TreeBuilder {
    fileprivate enum Frame {
        case mapping(entries: [YAMLEntry], mark: YAMLMark, pendingKey: YAMLScalar?)
        case sequence(items: [YAMLNode], mark: YAMLMark)
    }

    let source: String
    private(set) var root: YAMLNode?
    private var stack: [Frame] = []
    private var documents = 0

    init(source: String) {
        self.source = source
    }

    /// Takes one event; true at the end of the stream.
    mutating func consume(_ event: yaml_event_t) throws(ConfigurationError) -> Bool {
        let mark = YAMLMark(event.start_mark)
        switch event.type {
        case YAML_STREAM_END_EVENT:
            return true
        case YAML_DOCUMENT_START_EVENT:
            documents += 1
            if documents > 1 {
                throw ConfigurationError(code: .syntax, source: source, mark: mark, reason:
                    "a second YAML document starts here; a config file holds one document (remove the extra `---`).")
            }
        case YAML_MAPPING_START_EVENT:
            try checkDepth(at: mark)
            stack.append(.mapping(entries: [], mark: mark, pendingKey: nil))
        case YAML_SEQUENCE_START_EVENT:
            try checkDepth(at: mark)
            stack.append(.sequence(items: [], mark: mark))
        case YAML_MAPPING_END_EVENT:
            guard case .mapping(let entries, let start, _) = stack.popLast() else { break }
            try attach(.mapping(entries, start))
        case YAML_SEQUENCE_END_EVENT:
            guard case .sequence(let items, let start) = stack.popLast() else { break }
            try attach(.sequence(items, start))
        case YAML_SCALAR_EVENT:
            try attach(.scalar(scalar(event, mark: mark)))
        case YAML_ALIAS_EVENT:
            throw ConfigurationError(code: .syntax, source: source, mark: mark, reason:
                "YAML aliases (*name) are not supported in the config file; write the value out in full.")
        default:
            break  // stream start, document end
        }
        return false
    }

    /// The deepest nesting read. A config file nests three or four levels (`mqtt:`, `tls:`, a key);
    /// libyaml's time grows faster than the square of the depth (60,000 `[` take 3 s, 200,000 a
    /// minute, and a file may have 1 MiB; found while fuzzing), so reading stops well before.
    static let maximumDepth = 32

    private func checkDepth(at mark: YAMLMark) throws(ConfigurationError) {
        guard stack.count < Self.maximumDepth else {
            throw ConfigurationError(code: .syntax, source: source, mark: mark, reason:
                "the YAML nests more than \(Self.maximumDepth) levels deep here; a config file needs three or four"
                + " (a section such as mqtt, a subsection such as tls, a value): check the brackets and the indentation.")
        }
    }

    private func scalar(_ event: yaml_event_t, mark: YAMLMark) throws(ConfigurationError) -> YAMLScalar {
        let data = event.data.scalar
        let text = data.value.map {
            String(decoding: UnsafeBufferPointer(start: $0, count: Int(data.length)), as: UTF8.self)
        } ?? ""
        var isPlain = data.style == YAML_PLAIN_SCALAR_STYLE
        if let tagPointer = data.tag {
            let tag = String(cString: tagPointer)
            guard tag == "tag:yaml.org,2002:str" else {
                throw ConfigurationError(code: .syntax, source: source, mark: mark, reason:
                    "YAML tags such as \(tag.replacingTagPrefix) are not supported; write the value without a tag"
                    + " (quote it to make it text).")
            }
            isPlain = false  // `!!str 5` is the text "5", like "5"
        }
        return YAMLScalar(text: text, isPlain: isPlain, mark: mark)
    }

    private mutating func attach(_ node: YAMLNode) throws(ConfigurationError) {
        guard !stack.isEmpty else {
            root = node
            return
        }
        // In place: a frame popped and pushed back would copy its whole list at every append
        // (10,000 items of `[1,1,…]` took 5 s under ASan, and a file may have 1 MiB; found while fuzzing).
        try stack[stack.count - 1].add(node, source: source)
    }
}

extension TreeBuilder.Frame {
    /// Adds `node`: an item of a sequence, a mapping's pending key, or its value.
    mutating func add(_ node: YAMLNode, source: String) throws(ConfigurationError) {
        switch self {
        case .sequence(var items, let mark):
            // Leaving a placeholder first makes `items` the array's only reference, so the
            // append does not copy it.
            self = .sequence(items: [], mark: mark)
            items.append(node)
            self = .sequence(items: items, mark: mark)
        case .mapping(var entries, let mark, let pendingKey):
            self = .mapping(entries: [], mark: mark, pendingKey: nil)
            if let key = pendingKey {
                entries.append(YAMLEntry(key: key, value: node))
                self = .mapping(entries: entries, mark: mark, pendingKey: nil)
            } else {
                guard case .scalar(let key) = node else {
                    throw ConfigurationError(code: .syntax, source: source, mark: node.mark, reason:
                        "a key must be a plain name, not \(node.kindDescription).")
                }
                self = .mapping(entries: entries, mark: mark, pendingKey: key)
            }
        }
    }
}

extension String {
    /// `tag:yaml.org,2002:int` as a person wrote it: `!!int`.
    fileprivate var replacingTagPrefix: String {
        let prefix = "tag:yaml.org,2002:"
        return hasPrefix(prefix) ? "!!" + dropFirst(prefix.count) : self
    }
}
