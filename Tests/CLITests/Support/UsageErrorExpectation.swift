import Testing

extension PlumbProcess {
    /// Runs `plumb arguments…` and checks it was refused as a command-line mistake: exit status
    /// 2, a message on stderr that mentions `mentioned` and shows `usage`, nothing on stdout.
    static func expectUsageError(_ arguments: [String], mentioning mentioned: String, usage: String = "Usage",
                                 sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let outcome = try await run(arguments)
        #expect(outcome.status == 2, "\(outcome)", sourceLocation: sourceLocation)
        #expect(outcome.stderr.contains(mentioned), "\(outcome)", sourceLocation: sourceLocation)
        #expect(outcome.stderr.contains(usage), "\(outcome)", sourceLocation: sourceLocation)
        #expect(outcome.stdout.isEmpty, "\(outcome)", sourceLocation: sourceLocation)
    }
}
