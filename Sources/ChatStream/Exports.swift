// `import ChatStream` brings the JSON layer and the framings too.
@_exported public import ChatStreamFraming
@_exported public import ChatStreamJSON
