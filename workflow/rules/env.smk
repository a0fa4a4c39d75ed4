# env stage (being written)
