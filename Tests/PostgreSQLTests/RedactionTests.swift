import PostgreSQL
import Testing

/// Redaction needs no server: it reads the connection string as libpq does.
@Suite struct RedactionTests {
    @Test(arguments: [
        // URIs: the user information's password, in both schemes.
        ("postgresql://u:secret@h/db", "postgresql://u:***@h/db"),
        ("postgres://u:secret@h:5432/db", "postgres://u:***@h:5432/db"),
        ("postgresql://u:s%40cr%3Aet@h/db", "postgresql://u:***@h/db"),
        ("postgresql://u:@h/db", "postgresql://u:***@h/db"),
        ("postgresql://u:secret@[::1]:5432,h2:5433/db?sslmode=require", "postgresql://u:***@[::1]:5432,h2:5433/db?sslmode=require"),
        // Unencoded `@`, `/` and `?` in a password: hidden whole, however libpq reads them.
        ("postgresql://u:p@ss@h/db", "postgresql://u:***@h/db"),
        ("postgresql://u:pa/ss@h/db", "postgresql://u:***@h/db"),
        ("postgresql://u:pa?ss@h/db", "postgresql://u:***@h/db"),
        // Query parameters, their keyword plain or percent-encoded, and sslpassword.
        ("postgresql://h/db?user=u&password=secret&sslmode=verify-full", "postgresql://h/db?user=u&password=***&sslmode=verify-full"),
        ("postgresql:///db?host=%2Ftmp&password=secret", "postgresql:///db?host=%2Ftmp&password=***"),
        ("postgresql://h/db?pass%77ord=secret", "postgresql://h/db?pass%77ord=***"),
        ("postgresql://h/db?sslpassword=keysecret", "postgresql://h/db?sslpassword=***"),
        ("postgresql://u:one@h/db?password=two", "postgresql://u:***@h/db?password=***"),
        // Nothing to hide.
        ("postgresql://u@h/db", "postgresql://u@h/db"),
        ("postgresql://h:5432/db?user=a@b", "postgresql://h:5432/db?user=a@b"),
        ("host=h dbname=db", "host=h dbname=db"),
        ("", ""),
        // key=value: bare, quoted with escapes, spaced around `=`, first or last.
        ("host=h password=secret dbname=db", "host=h password=*** dbname=db"),
        ("password=secret", "password=***"),
        ("host=h password='sec ret\\'s' dbname=db", "host=h password=*** dbname=db"),
        ("host=h password = secret", "host=h password = ***"),
        ("host=h\tpassword=\tsecret\nuser=u", "host=h\tpassword=\t***\nuser=u"),
        ("host=h password=sec\\ ret user=u", "host=h password=*** user=u"),
        ("sslpassword=keysecret host=h", "sslpassword=*** host=h"),
        // A connection string given as dbname, which libpq expands.
        ("dbname=postgresql://u:secret@h/db", "dbname=postgresql://u:***@h/db"),
        ("dbname='host=h password=secret'", "dbname='host=h password=***'"),
        // Malformed: from the password to the end.
        ("host=h password='unterminated secret", "host=h password=***"),
        ("host=h password=\"sec ret\" dbname=db", "host=h password=***"),
        ("host=h password", "host=h ***"),
    ])
    func redactsEveryPassword(_ connectionString: String, _ expected: String) {
        #expect(redactPasswords(in: connectionString) == expected)
    }

    /// libpq quotes what it cannot parse: a malformed password must not reach the message.
    @Test(arguments: [
        ("postgresql://taskline:Xy%zzQv@/taskline_test", ["Xy", "zzQv"]),
        ("host=/nonexistent password=\"Kw7 Jd9\" dbname=x", ["Kw7", "Jd9"]),
        ("host=/nonexistent password='Mn4unterminated", ["Mn4"]),
        ("postgresql://u:Vb8secret@/db?host=/nonexistent", ["Vb8"]),
        // libpq reads `Kw7` as the port, and says it is not a number.
        ("postgresql://u:Kw7/Jd9@h/db", ["Kw7", "Jd9"]),
    ])
    func connectionErrorsNeverQuoteThePassword(_ connectionString: String, _ pieces: [String]) throws {
        let error = try #require(throws: PostgresError.self) { try PostgresConnection(connectionString) }
        for piece in pieces {
            #expect(!error.description.contains(piece), "\(error)")
        }
        #expect(error.description.contains("***"))
    }
}
