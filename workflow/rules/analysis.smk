# analysis stage (being written)
