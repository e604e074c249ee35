import Geometry
import Testing

@Suite("Sentences: messages joined from parts that may or may not end with a full stop")
struct SentencesTests {
    @Test("Each part ends with exactly one full stop, whether or not its source wrote one")
    func oneFullStopEach() {
        #expect(Sentences.join("lost the broker: The connection was lost.", "Reconnecting with backoff.")
            == "lost the broker: The connection was lost. Reconnecting with backoff.")
        #expect(Sentences.join("lost the broker: ECONNRESET", "Reconnecting with backoff")
            == "lost the broker: ECONNRESET. Reconnecting with backoff.")
        #expect(Sentences.join("CONNACK 5 (not authorized)", "Check the password.")
            == "CONNACK 5 (not authorized). Check the password.")
    }

    @Test("Questions and exclamations keep their mark; blanks and surrounding whitespace go")
    func otherMarksAndBlanks() {
        #expect(Sentences.join("Is mosquitto running?", "Check the port!") == "Is mosquitto running? Check the port!")
        #expect(Sentences.join(" first. ", "", "  ", "second\n") == "first. second.")
        #expect(Sentences.join([]) == "")
        #expect(Sentences.join("only") == "only.")
    }
}
