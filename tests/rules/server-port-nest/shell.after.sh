python3 -m lab.serve service.server.port=8080 logging.level=debug
