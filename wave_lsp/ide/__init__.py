"""Protocol-free editor features: plain data computed from a document, which the server layer
translates into the Language Server Protocol (DESIGN.md §2). Nothing here imports pygls or
lsprotocol; positions are (line, column) in code points, like the syntax layer's.
"""
