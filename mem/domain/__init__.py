"""What more than one command reads or decides: the layer below `mem.commands`.

A command module is a leaf: it imports from here, never from another command. Nothing
here is imported on package import, so a warm recall loads only the modules it asks for.
"""
