import ChatStreamFraming
import ChatStreamJSON

extension FramingError {
    /// `error` as the JSON framers report it: the value scanner's failure (a byte that cannot
    /// start a value, the depth or size limit) as the framing error of the same kind, offset and
    /// message; any other error (the parser's, the caller's) unchanged.
    static func reporting(_ error: any Error) -> any Error {
        guard let failure = error as? JSONValueScanner.Failure else { return error }
        let kind: Kind =
            switch failure.kind {
            case .unexpectedByte: .unexpectedByte
            case .depthLimitExceeded: .depthLimitExceeded
            case .valueTooLarge: .valueTooLarge
            }
        return FramingError(kind, at: failure.byteOffset, failure.message)
    }
}
