// What `import ChatStreamServer` brings from ChatStreamHTTP: the status reason phrases the server
// writes (header fields come with `import ChatStreamClient`, or `import ChatStreamHTTP` by name).
@_exported public import enum ChatStreamHTTP.HTTPStatus
