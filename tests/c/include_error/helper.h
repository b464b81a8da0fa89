/* Included by main.c: the refusal must point here, not into the preprocessed text. */
void *worker(void *unused)
{
	goto done; /* into a nested block: refused */
	{
done:
		return NULL;
	}
}
