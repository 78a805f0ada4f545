"""The order language: the Lark grammar and the code that turns a line into an order."""
