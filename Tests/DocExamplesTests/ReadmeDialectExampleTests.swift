// The README's dialect example runs as it says: two lines become one text.

import Testing

@Suite struct ReadmeDialectExampleTests {
    @Test func theExampleDialectGivesItsLinesAsOneText() throws {
        #expect(try readmeAddADialect() == "onetwo")
    }
}
